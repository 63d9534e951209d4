package argo

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/internal/operator/argowf"
)

// Prepare gives the namespace what Argo's init and wait containers need
// and nothing more: the executor's ServiceAccount, a Role to record a
// step's result (workflowtaskresults create and patch; Argo's
// manifests/quick-start executor Role) bound to it, and its token
// Secret, which Argo mounts into its own containers alone
// (spec.executor) while the Workflow's pods, running as the campaign's
// account, mount no token. Created once, left in place: other campaigns
// of the namespace use them.
func (Executor) Prepare(ctx context.Context, c client.Client, ns, _ string) error {
	name := argowf.ExecutorServiceAccount
	meta := metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"app.kubernetes.io/managed-by": "blastfleet"}}
	token := meta
	token.Name = executorTokenSecret // the name Argo looks for
	// The API server's token controller fills it in.
	token.Annotations = map[string]string{corev1.ServiceAccountNameKey: name}
	objs := []client.Object{
		&corev1.ServiceAccount{ObjectMeta: meta},
		&rbacv1.Role{ObjectMeta: meta, Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{argowf.GroupVersion.Group}, Resources: []string{"workflowtaskresults"}, Verbs: []string{"create", "patch"},
		}}},
		&rbacv1.RoleBinding{ObjectMeta: meta,
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: ns}}},
		&corev1.Secret{ObjectMeta: token, Type: corev1.SecretTypeServiceAccountToken},
	}
	for _, o := range objs {
		if err := c.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating %T %s/%s for Argo's executor: %w", o, ns, o.GetName(), err)
		}
	}
	return nil
}

// executorTokenSecret is the executor account's token Secret, named as
// Argo finds it (util/secrets.TokenName).
const executorTokenSecret = argowf.ExecutorServiceAccount + ".service-account-token"
