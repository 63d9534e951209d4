package controllers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/internal/argowf"
)

// Prepare gives the namespace what Argo's wait container needs and
// nothing more: a Role to record a step's result (workflowtaskresults
// create and patch; Argo's manifests/quick-start executor Role), bound to
// the ServiceAccount the pods run as: the executor's own, created here,
// or the campaign's spec.partitions.serviceAccountName (the user's, not
// created). Created once, left in place: other campaigns of the
// namespace use them.
func (ArgoExecutor) Prepare(ctx context.Context, c client.Client, ns, serviceAccount string) error {
	name := argowf.ExecutorServiceAccount
	meta := metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"app.kubernetes.io/managed-by": "blastfleet"}}
	sa := executorAccount(serviceAccount)
	binding := meta
	if sa != name {
		binding.Name = bindingName(name, sa)
	}
	objs := []client.Object{
		&rbacv1.Role{ObjectMeta: meta, Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{argowf.GroupVersion.Group}, Resources: []string{"workflowtaskresults"}, Verbs: []string{"create", "patch"},
		}}},
		&rbacv1.RoleBinding{ObjectMeta: binding,
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa, Namespace: ns}}},
	}
	if sa == name {
		objs = append([]client.Object{&corev1.ServiceAccount{ObjectMeta: meta}}, objs...)
	}
	for _, o := range objs {
		if err := c.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating %T %s/%s for Argo's executor: %w", o, ns, name, err)
		}
	}
	return nil
}

// bindingName names the RoleBinding of the executor Role to sa: within a
// name's 253 characters, a hash telling long ones apart.
func bindingName(role, sa string) string {
	n := role + "-" + sa
	if len(n) <= 253 {
		return n
	}
	sum := sha256.Sum256([]byte(sa))
	return strings.TrimRight(n[:242], "-.") + "-" + hex.EncodeToString(sum[:5])
}
