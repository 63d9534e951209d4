package install

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8slabels "k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
)

// checkUserRoles checks the installed <prefix>-edit and <prefix>-view
// ClusterRoles against the real API server: a user bound to edit in a
// namespace (and to nothing else) creates a SearchCampaign there,
// impersonated, but reads no Secret and touches no other namespace; a
// view user reads and creates nothing. And the API server's own admin,
// edit and view ClusterRoles select them for aggregation (envtest runs
// no controller manager, whose aggregation controller would then copy
// the rules in: this checks the labels against the real selectors).
func checkUserRoles(t *testing.T, c *cluster, prefix string) {
	t.Helper()
	ctx := context.Background()
	const ns = "research"
	if err := c.client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	for user, role := range map[string]string{"alice": prefix + "-edit", "bob": prefix + "-view"} {
		rb := &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: user, Namespace: ns},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
			Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
		}
		if err := c.client.Create(ctx, rb); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.client.Delete(ctx, rb) })
	}

	alice, bob := c.as(t, "alice"), c.as(t, "bob")
	campaign := func(namespace string) *v1alpha1.SearchCampaign {
		return &v1alpha1.SearchCampaign{
			ObjectMeta: metav1.ObjectMeta{Name: "by-" + prefix, Namespace: namespace},
			Spec: v1alpha1.SearchCampaignSpec{
				DatabaseRef: v1alpha1.DatabaseReference{Name: "sprot"},
				Queries:     v1alpha1.Queries{ObjectReference: v1alpha1.ObjectReference{Key: "q.fa"}},
				Program:     "blastp",
				Output:      v1alpha1.ObjectStorage{Bucket: "results", CredentialsSecretRef: &v1alpha1.CredentialsSecretRef{Name: "s3"}},
			},
		}
	}
	mine := campaign(ns)
	if err := alice.Create(ctx, mine); err != nil {
		t.Errorf("a user bound to %s-edit in %s cannot create a SearchCampaign there: %v", prefix, ns, err)
	} else {
		t.Cleanup(func() { _ = c.client.Delete(ctx, mine) })
	}
	var list v1alpha1.SearchCampaignList
	if err := bob.List(ctx, &list, client.InNamespace(ns)); err != nil || len(list.Items) != 1 {
		t.Errorf("a user bound to %s-view lists %d campaigns in %s (%v), want 1", prefix, len(list.Items), ns, err)
	}
	for what, err := range map[string]error{
		"edit user creates a campaign in another namespace": alice.Create(ctx, campaign("default")),
		"edit user reads a Secret":                          alice.Get(ctx, client.ObjectKey{Namespace: ns, Name: "s3"}, &corev1.Secret{}),
		"edit user lists pods":                              alice.List(ctx, &corev1.PodList{}, client.InNamespace(ns)),
		"view user creates a campaign":                      bob.Create(ctx, campaign(ns)),
		"view user deletes a campaign":                      bob.Delete(ctx, mine),
	} {
		if !apierrors.IsForbidden(err) {
			t.Errorf("%s: %v, want Forbidden", what, err)
		}
	}

	for _, a := range []struct {
		builtin, ours string
		want          bool
	}{
		{"admin", prefix + "-edit", true},
		{"edit", prefix + "-edit", true},
		{"view", prefix + "-view", true},
		{"view", prefix + "-edit", false}, // viewers must not gain edit rights
		{"edit", prefix + "-view", false},
	} {
		var builtin, ours rbacv1.ClusterRole
		if err := c.client.Get(ctx, client.ObjectKey{Name: a.builtin}, &builtin); err != nil {
			t.Fatalf("the API server's bootstrap ClusterRole %s: %v", a.builtin, err)
		}
		if err := c.client.Get(ctx, client.ObjectKey{Name: a.ours}, &ours); err != nil {
			t.Fatal(err)
		}
		if got := aggregates(t, &builtin, ours.Labels); got != a.want {
			t.Errorf("the built-in %s aggregates %s: %v, want %v (its labels %v)", a.builtin, a.ours, got, a.want, ours.Labels)
		}
	}
}

// aggregates says whether role's aggregation rule selects labels.
func aggregates(t *testing.T, role *rbacv1.ClusterRole, labels map[string]string) bool {
	t.Helper()
	if role.AggregationRule == nil {
		t.Fatalf("ClusterRole %s has no aggregation rule", role.Name)
	}
	for _, s := range role.AggregationRule.ClusterRoleSelectors {
		sel, err := metav1.LabelSelectorAsSelector(&s)
		if err != nil {
			t.Fatal(err)
		}
		if sel.Matches(k8slabels.Set(labels)) {
			return true
		}
	}
	return false
}

// as is a client impersonating user (no groups but system:authenticated).
func (c *cluster) as(t *testing.T, user string) client.Client {
	t.Helper()
	cfg := rest.CopyConfig(c.cfg)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: []string{"system:authenticated"}}
	cl, err := client.New(cfg, client.Options{Scheme: c.client.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	return cl
}
