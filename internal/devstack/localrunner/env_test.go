package localrunner

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/blastfleet/blastfleet/internal/operator/kubescheme"
)

func TestContainerEnv(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(kubescheme.New()).WithObjects(
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns"}, Data: map[string][]byte{"k": []byte("secret")}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "ns"}, Data: map[string]string{"A": "from-cm", "B": "b"}},
	).Build()
	res := &envResolver{reader: c, pod: podMeta{Namespace: "ns", Name: "p-0", Annotations: map[string]string{"x": "y"}},
		secrets: map[string]*corev1.Secret{}, configMaps: map[string]*corev1.ConfigMap{}}
	ref := func(name, key string, optional bool) *corev1.EnvVarSource {
		return &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: name}, Key: key, Optional: ptr.To(optional)}}
	}
	env, err := res.containerEnv(context.Background(), &corev1.Container{
		EnvFrom: []corev1.EnvFromSource{{Prefix: "CM_", ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}}}},
		Env: []corev1.EnvVar{
			{Name: "KEY", ValueFrom: ref("s", "k", false)},
			{Name: "GONE", ValueFrom: ref("missing", "k", true)},
			{Name: "JOINED", Value: "$(CM_A)-$(KEY)-$(LATER)"},
			{Name: "LATER", Value: "l"},
			{Name: "POD", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
			{Name: "ANN", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.annotations['x']"}}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(env.environ(), " ")
	want := "CM_A=from-cm CM_B=b KEY=secret JOINED=from-cm-secret-$(LATER) LATER=l POD=p-0 ANN=y"
	if got != want {
		t.Fatalf("env\n got %s\nwant %s", got, want)
	}
	_, err = res.containerEnv(context.Background(), &corev1.Container{Env: []corev1.EnvVar{{Name: "X", ValueFrom: ref("missing", "k", false)}}})
	if err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("a missing required Secret: %v", err)
	}
}
