package controllers

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

func TestOnceReaderReadsEachObjectOnce(t *testing.T) {
	gets := map[string]int{}
	c := fake.NewClientBuilder().WithObjects(
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "keys"}, Data: map[string][]byte{"k": []byte("v")}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "keys"}},
	).WithInterceptorFuncs(interceptor.Funcs{Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
		gets[key.Name]++
		return c.Get(ctx, key, obj, opts...)
	}}).Build()
	r := newOnceReader(c)
	ctx := context.Background()
	for range 3 {
		var s corev1.Secret
		if err := r.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "keys"}, &s); err != nil || string(s.Data["k"]) != "v" {
			t.Fatalf("secret %v, %v", s.Data, err)
		}
		s.Data["k"] = []byte("edited by the caller")
		var cm corev1.ConfigMap
		if err := r.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "keys"}, &cm); err != nil || cm.Name != "keys" {
			t.Fatalf("configmap %v, %v", cm.Name, err)
		}
		err := r.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "none"}, &corev1.Secret{})
		if !apierrors.IsNotFound(err) {
			t.Fatalf("missing secret: %v", err)
		}
	}
	// The Secret and the ConfigMap of one name are two objects.
	if gets["keys"] != 2 || gets["none"] != 1 {
		t.Errorf("reads %v, want keys 2 (a Secret and a ConfigMap) and none 1", gets)
	}
}
