package localrunner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
)

// writeConfigMaps writes the ConfigMap volumes c mounts (as the kubelet
// projects them: the items named, or every key) into their stand-in
// directories under base, so a path the pod's env or args name (a CA
// bundle, say) exists locally. A missing ConfigMap keeps the pod
// pending, as it does on a node.
func writeConfigMaps(ctx context.Context, res *envResolver, base string, spec *corev1.PodSpec, c *corev1.Container) error {
	mounted := map[string]bool{}
	for _, m := range c.VolumeMounts {
		mounted[m.Name] = true
	}
	for _, v := range spec.Volumes {
		if v.ConfigMap == nil || !mounted[v.Name] {
			continue
		}
		cm, err := res.configMap(ctx, v.ConfigMap.Name, v.ConfigMap.Optional)
		if err != nil {
			return err
		}
		if cm == nil {
			continue // optional and missing: an empty directory
		}
		items := v.ConfigMap.Items
		if len(items) == 0 {
			for k := range cm.Data {
				items = append(items, corev1.KeyToPath{Key: k, Path: k})
			}
		}
		dir := filepath.Join(base, v.Name)
		for _, it := range items {
			data, ok := cm.Data[it.Key]
			if !ok {
				return fmt.Errorf("configmap %s/%s has no key %s (volume %s)", cm.Namespace, cm.Name, it.Key, v.Name)
			}
			f := filepath.Join(dir, filepath.FromSlash(it.Path))
			if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(f, []byte(data), 0o644); err != nil {
				return fmt.Errorf("volume %s: %w", v.Name, err)
			}
		}
	}
	return nil
}
