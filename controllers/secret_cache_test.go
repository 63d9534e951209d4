package controllers

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

// TestCachedReader: an object read serves later reads for the TTL, as a
// copy; a Secret and a ConfigMap of one name are two objects; a failed read
// is not kept; forget drops a namespace's objects.
func TestCachedReader(t *testing.T) {
	gets := map[string]int{}
	c := fake.NewClientBuilder().WithObjects(
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "keys"}, Data: map[string][]byte{"k": []byte("v")}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "keys"}},
	).WithInterceptorFuncs(interceptor.Funcs{Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
		gets[key.Name]++
		return c.Get(ctx, key, obj, opts...)
	}}).Build()
	now := time.Unix(1e9, 0)
	r := newCachedReader(c, time.Minute, func() time.Time { return now })
	ctx := context.Background()
	read := func() {
		t.Helper()
		var s corev1.Secret
		if err := r.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "keys"}, &s); err != nil || string(s.Data["k"]) != "v" {
			t.Fatalf("secret %v, %v", s.Data, err)
		}
		s.Data["k"] = []byte("edited by the caller")
		var cm corev1.ConfigMap
		if err := r.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "keys"}, &cm); err != nil || cm.Name != "keys" {
			t.Fatalf("configmap %v, %v", cm.Name, err)
		}
		if err := r.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "none"}, &corev1.Secret{}); !apierrors.IsNotFound(err) {
			t.Fatalf("missing secret: %v", err)
		}
	}
	for range 3 {
		read()
		now = now.Add(20 * time.Second)
	}
	if gets["keys"] != 2 || gets["none"] != 3 {
		t.Errorf("reads within the TTL: %v, want keys 2 (a Secret and a ConfigMap) and none 3 (not kept)", gets)
	}
	read() // 60 s after the first: read again
	if gets["keys"] != 4 {
		t.Errorf("reads after the TTL: %v, want keys 4", gets)
	}
	r.forget("other")
	read()
	r.forget("ns")
	read()
	if gets["keys"] != 6 {
		t.Errorf("reads after forget: %v, want keys 6", gets)
	}
}
