package localrunner

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// podMeta is what a pod would be, for fieldRef env.
type podMeta struct {
	Namespace, Name string
	UID             types.UID
	Labels          map[string]string
	Annotations     map[string]string
	ServiceAccount  string
}

// envList is an ordered environment where a later value of a name
// replaces the earlier one in place, as in a container.
type envList struct {
	names []string
	vals  map[string]string
}

func newEnvList() *envList { return &envList{vals: map[string]string{}} }

func (e *envList) set(name, val string) {
	if _, ok := e.vals[name]; !ok {
		e.names = append(e.names, name)
	}
	e.vals[name] = val
}

func (e *envList) get(name string) (string, bool) { v, ok := e.vals[name]; return v, ok }

// setAll adds KEY=VALUE entries (os.Environ form).
func (e *envList) setAll(kvs []string) {
	for _, kv := range kvs {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			e.set(k, v)
		}
	}
}

func (e *envList) merge(o *envList) {
	for _, n := range o.names {
		e.set(n, o.vals[n])
	}
}

func (e *envList) environ() []string {
	out := make([]string, 0, len(e.names))
	for _, n := range e.names {
		out = append(out, n+"="+e.vals[n])
	}
	return out
}

// envResolver reads the Secrets and ConfigMaps env refers to, once each,
// through the API server (uncached: the runner needs only get on them).
type envResolver struct {
	reader     client.Reader
	pod        podMeta
	secrets    map[string]*corev1.Secret
	configMaps map[string]*corev1.ConfigMap
}

// containerEnv is the container's environment as the kubelet builds it:
// envFrom first, then env in order, each value's $(VAR) expanded with the
// variables defined before it; valueFrom values are taken verbatim.
func (r *envResolver) containerEnv(ctx context.Context, c *corev1.Container) (*envList, error) {
	env := newEnvList()
	for _, from := range c.EnvFrom {
		if err := r.envFrom(ctx, from, env); err != nil {
			return nil, err
		}
	}
	for _, v := range c.Env {
		if v.ValueFrom == nil {
			env.set(v.Name, expand(v.Value, env.vals))
			continue
		}
		val, ok, err := r.valueFrom(ctx, v.ValueFrom)
		if err != nil {
			return nil, fmt.Errorf("env %s: %w", v.Name, err)
		}
		if ok {
			env.set(v.Name, val)
		}
	}
	return env, nil
}

func (r *envResolver) envFrom(ctx context.Context, from corev1.EnvFromSource, env *envList) error {
	var data map[string]string
	switch {
	case from.SecretRef != nil:
		s, err := r.secret(ctx, from.SecretRef.Name, from.SecretRef.Optional)
		if err != nil || s == nil {
			return err
		}
		data = map[string]string{}
		for k, v := range s.Data {
			data[k] = string(v)
		}
		for k, v := range s.StringData {
			data[k] = v
		}
	case from.ConfigMapRef != nil:
		cm, err := r.configMap(ctx, from.ConfigMapRef.Name, from.ConfigMapRef.Optional)
		if err != nil || cm == nil {
			return err
		}
		data = cm.Data
	default:
		return nil
	}
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		env.set(from.Prefix+k, data[k])
	}
	return nil
}

// valueFrom resolves one reference; ok is false for a missing optional one.
func (r *envResolver) valueFrom(ctx context.Context, src *corev1.EnvVarSource) (val string, ok bool, err error) {
	switch {
	case src.SecretKeyRef != nil:
		ref := src.SecretKeyRef
		s, err := r.secret(ctx, ref.Name, ref.Optional)
		if err != nil || s == nil {
			return "", false, err
		}
		if v, found := s.Data[ref.Key]; found {
			return string(v), true, nil
		}
		if isOptional(ref.Optional) {
			return "", false, nil
		}
		return "", false, fmt.Errorf("secret %s/%s has no key %q", r.pod.Namespace, ref.Name, ref.Key)
	case src.ConfigMapKeyRef != nil:
		ref := src.ConfigMapKeyRef
		cm, err := r.configMap(ctx, ref.Name, ref.Optional)
		if err != nil || cm == nil {
			return "", false, err
		}
		if v, found := cm.Data[ref.Key]; found {
			return v, true, nil
		}
		if v, found := cm.BinaryData[ref.Key]; found {
			return string(v), true, nil
		}
		if isOptional(ref.Optional) {
			return "", false, nil
		}
		return "", false, fmt.Errorf("configmap %s/%s has no key %q", r.pod.Namespace, ref.Name, ref.Key)
	case src.FieldRef != nil:
		v, err := r.field(src.FieldRef.FieldPath)
		return v, err == nil, err
	default:
		return "", false, fmt.Errorf("only secretKeyRef, configMapKeyRef and fieldRef run locally")
	}
}

// field is a downward-API field of the stand-in pod: it runs on this
// machine, so its addresses are loopback.
func (r *envResolver) field(path string) (string, error) {
	p := r.pod
	switch path {
	case "metadata.name":
		return p.Name, nil
	case "metadata.namespace":
		return p.Namespace, nil
	case "metadata.uid":
		return string(p.UID), nil
	case "spec.nodeName":
		return "localhost", nil
	case "spec.serviceAccountName":
		return p.ServiceAccount, nil
	case "status.podIP", "status.hostIP", "status.podIPs", "status.hostIPs":
		return "127.0.0.1", nil
	}
	for prefix, m := range map[string]map[string]string{"metadata.labels": p.Labels, "metadata.annotations": p.Annotations} {
		if k, ok := strings.CutPrefix(path, prefix+"['"); ok && strings.HasSuffix(k, "']") {
			return m[strings.TrimSuffix(k, "']")], nil
		}
	}
	return "", fmt.Errorf("fieldRef %s does not run locally", path)
}

func (r *envResolver) secret(ctx context.Context, name string, optional *bool) (*corev1.Secret, error) {
	if s, ok := r.secrets[name]; ok && (s != nil || isOptional(optional)) {
		return s, nil // nil: known missing
	}
	var s corev1.Secret
	if err := r.reader.Get(ctx, client.ObjectKey{Namespace: r.pod.Namespace, Name: name}, &s); err != nil {
		if apierrors.IsNotFound(err) && isOptional(optional) {
			r.secrets[name] = nil
			return nil, nil
		}
		return nil, fmt.Errorf("reading secret %s/%s: %w", r.pod.Namespace, name, err)
	}
	r.secrets[name] = &s
	return &s, nil
}

func (r *envResolver) configMap(ctx context.Context, name string, optional *bool) (*corev1.ConfigMap, error) {
	if cm, ok := r.configMaps[name]; ok && (cm != nil || isOptional(optional)) {
		return cm, nil // nil: known missing
	}
	var cm corev1.ConfigMap
	if err := r.reader.Get(ctx, client.ObjectKey{Namespace: r.pod.Namespace, Name: name}, &cm); err != nil {
		if apierrors.IsNotFound(err) && isOptional(optional) {
			r.configMaps[name] = nil
			return nil, nil
		}
		return nil, fmt.Errorf("reading configmap %s/%s: %w", r.pod.Namespace, name, err)
	}
	r.configMaps[name] = &cm
	return &cm, nil
}

func isOptional(b *bool) bool { return b != nil && *b }
