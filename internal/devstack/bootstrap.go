package devstack

import (
	"context"
	"fmt"
	"os"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
)

// installCRDs creates or updates the CRDs and waits until they are
// served (envtest's installer: create, else update in place).
func installCRDs(cfg *rest.Config, paths []string) error {
	_, err := envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{Paths: paths, ErrorIfPathMissing: true, MaxTime: time.Minute})
	if err != nil {
		return fmt.Errorf("installing CRDs from %v: %w", paths, err)
	}
	return nil
}

// waitNamespace waits for the API server to create ns (default, at boot).
func waitNamespace(ctx context.Context, c client.Client, ns string) error {
	var last error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if last = c.Get(ctx, client.ObjectKey{Name: ns}, &corev1.Namespace{}); last == nil {
			return nil
		}
	}
	return fmt.Errorf("namespace %s: %w", ns, last)
}

// installOperatorRBAC binds the operator's user to its ClusterRole, read
// from config/rbac/role.yaml (generated from the reconcilers' markers),
// so the stack runs the operator with the rights a cluster would give it.
func installOperatorRBAC(ctx context.Context, c client.Client, rolePath string) error {
	b, err := os.ReadFile(rolePath)
	if err != nil {
		return fmt.Errorf("operator ClusterRole: %w", err)
	}
	var role rbacv1.ClusterRole
	if err := yaml.UnmarshalStrict(b, &role); err != nil {
		return fmt.Errorf("operator ClusterRole %s: %w", rolePath, err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: operatorUser}},
	}
	for _, obj := range []client.Object{&role, binding} {
		if err := apply(ctx, c, obj); err != nil {
			return err
		}
	}
	return nil
}

// ensureSecret writes MinIO's credentials into the Secret campaigns and
// databases name by default (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY).
func ensureSecret(ctx context.Context, c client.Client, ns string, info MinIOInfo) error {
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: SecretName, Namespace: ns, Labels: map[string]string{"app.kubernetes.io/managed-by": "blastfleet-dev", v1alpha1.CredentialsLabel: "true"}},
		Type:       corev1.SecretTypeOpaque,
		Data:       map[string][]byte{"AWS_ACCESS_KEY_ID": []byte(info.AccessKey), "AWS_SECRET_ACCESS_KEY": []byte(info.SecretKey)},
	}
	return apply(ctx, c, s)
}

// apply creates obj, or replaces the existing one's content. It reads
// first: creating a Service that exists with a fixed cluster IP fails on
// the IP ("already allocated"), not as AlreadyExists.
// Controllers write the objects too (a Deployment's status, on an up
// over kept data), so a conflicting update is read and tried again.
func apply(ctx context.Context, c client.Client, obj client.Object) error {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur := obj.DeepCopyObject().(client.Object)
		err := c.Get(ctx, client.ObjectKeyFromObject(obj), cur)
		switch {
		case apierrors.IsNotFound(err):
			return c.Create(ctx, obj)
		case err != nil:
			return err
		}
		obj.SetResourceVersion(cur.GetResourceVersion())
		return c.Update(ctx, obj)
	})
	if err != nil {
		return fmt.Errorf("%T %s: %w", obj, obj.GetName(), err)
	}
	return nil
}
