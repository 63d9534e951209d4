package localrunner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/blastfleet/blastfleet/internal/operator/kubescheme"
)

// A mounted ConfigMap volume's items (or every key) land in its stand-in
// directory; one not mounted is left alone; a missing ConfigMap or key
// is an error (the pod stays pending).
func TestWriteConfigMaps(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(kubescheme.New()).WithObjects(
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "ca", Namespace: "ns"}, Data: map[string]string{"ca.crt": "PEM", "other": "x"}},
	).Build()
	res := func() *envResolver {
		return &envResolver{reader: c, pod: podMeta{Namespace: "ns", Name: "p"}, secrets: map[string]*corev1.Secret{}, configMaps: map[string]*corev1.ConfigMap{}}
	}
	cmVol := func(name, cm string, items ...corev1.KeyToPath) corev1.Volume {
		return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: cm}, Items: items}}}
	}
	base := t.TempDir()
	spec := &corev1.PodSpec{Volumes: []corev1.Volume{
		cmVol("picked", "ca", corev1.KeyToPath{Key: "ca.crt", Path: "sub/ca.pem"}),
		cmVol("all", "ca"),
		cmVol("unmounted", "missing"),
	}}
	ctr := &corev1.Container{VolumeMounts: []corev1.VolumeMount{{Name: "picked", MountPath: "/etc/ca"}, {Name: "all", MountPath: "/etc/all"}}}
	if err := writeConfigMaps(context.Background(), res(), base, spec, ctr); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{"picked/sub/ca.pem": "PEM", "all/ca.crt": "PEM", "all/other": "x"} {
		if b, err := os.ReadFile(filepath.Join(base, file)); err != nil || string(b) != want {
			t.Errorf("%s: %q %v, want %q", file, b, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(base, "picked", "other")); err == nil {
		t.Error("a key not among the items was written")
	}

	ctr.VolumeMounts = append(ctr.VolumeMounts, corev1.VolumeMount{Name: "unmounted", MountPath: "/x"})
	if err := writeConfigMaps(context.Background(), res(), base, spec, ctr); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("a missing ConfigMap: %v", err)
	}
	spec.Volumes[0] = cmVol("picked", "ca", corev1.KeyToPath{Key: "nokey", Path: "x"})
	ctr.VolumeMounts = ctr.VolumeMounts[:1]
	if err := writeConfigMaps(context.Background(), res(), base, spec, ctr); err == nil || !strings.Contains(err.Error(), "no key nokey") {
		t.Errorf("a missing key: %v", err)
	}
}
