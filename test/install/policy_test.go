package install

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	config "github.com/blastfleet/blastfleet/api/config/v1alpha1"
)

// The rules of the chart's <release>-edit and <release>-view ClusterRoles
// for namespace users: their own resources, nothing the operator creates.
var (
	userEditRules = []rbacv1.PolicyRule{
		{APIGroups: []string{"blastfleet.io"}, Resources: []string{"blastdatabases", "searchcampaigns"},
			Verbs: []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}},
		{APIGroups: []string{"blastfleet.io"}, Resources: []string{"blastdatabases/status", "searchcampaigns/status"}, Verbs: []string{"get"}},
	}
	userViewRules = []rbacv1.PolicyRule{
		{APIGroups: []string{"blastfleet.io"}, Resources: []string{"blastdatabases", "blastdatabases/status", "searchcampaigns", "searchcampaigns/status"},
			Verbs: []string{"get", "list", "watch"}},
	}
	// aggregation is the labels each user role carries to join the
	// built-in roles.
	aggregation = map[string][]string{
		"edit": {"rbac.authorization.k8s.io/aggregate-to-admin", "rbac.authorization.k8s.io/aggregate-to-edit"},
		"view": {"rbac.authorization.k8s.io/aggregate-to-view"},
	}
)

func managerArgs(t *testing.T, objs []*unstructured.Unstructured) []string {
	t.Helper()
	var d appsv1.Deployment
	into(t, find(t, objs, "Deployment", release).Object, &d)
	return d.Spec.Template.Spec.Containers[0].Args
}

// policy.* values become the configuration's policy; by default none is
// named (the operator's defaults: only the credentials and CA bundle
// labels required).
func TestChartPolicyFlags(t *testing.T) {
	c, fields := managerConfig(t, render(t, chartDir))
	if _, ok := fields["policy"]; ok || !c.Policy.RequireCredentialsLabel || len(c.Policy.AllowedEndpoints) > 0 || c.STSEndpoint != "" {
		t.Errorf("default values render policy %v (sts %q); want none named, the operator's defaults", fields["policy"], c.STSEndpoint)
	}

	c, _ = managerConfig(t, render(t, chartDir,
		"--set", "policy.allowedImages={registry.example.org/blastfleet/*,docker.io/library/debian:12}",
		"--set", "policy.allowedPriorityClasses={batch-low}",
		"--set", "policy.allowedNodeSelectors={pool=blast,zone}",
		"--set", "policy.allowedTolerationKeys={dedicated}",
		"--set", "policy.allowedEndpoints={minio.storage.svc,*.s3.example.org,10.20.0.0/16,fd00::/8}",
		"--set", "policy.requireCredentialsLabel=false",
		"--set", "sts.endpoint=https://minio.storage.svc:9000",
	))
	want := config.Policy{
		AllowedImages:          []string{"registry.example.org/blastfleet/*", "docker.io/library/debian:12"},
		AllowedPriorityClasses: []string{"batch-low"},
		AllowedNodeSelectors:   []string{"pool=blast", "zone"},
		AllowedTolerationKeys:  []string{"dedicated"},
		AllowedEndpoints:       []string{"minio.storage.svc", "*.s3.example.org", "10.20.0.0/16", "fd00::/8"},
		RequireCABundleLabel:   true,
	}
	if !reflect.DeepEqual(c.Policy, want) || c.STSEndpoint != "https://minio.storage.svc:9000" {
		t.Errorf("policy %+v (sts %q), want %+v", c.Policy, c.STSEndpoint, want)
	}

	// The schema refuses what the manager would refuse at start (a URL
	// where a host is wanted, a comma inside an entry) and typos.
	for _, set := range []string{
		"policy.allowedEndpoints={http://minio:9000}",
		"policy.allowedImages[0]=a b",
		"policy.allowedNodeSelectors={=x}",
		"policy.requireCredentialsLabel=maybe",
		"policy.allowImages={x}",
		"sts.endpoint=minio:9000",
		"sts.endpoint=https://sts.example/path",
	} {
		_, err := helm(t, "template", release, chartDir, "--set", set)
		if err == nil || !strings.Contains(err.Error(), "values don't meet the specifications of the schema") {
			t.Errorf("helm template --set %s: %v, want refused by the schema", set, err)
		}
	}
}

// The user roles carry the aggregation labels (config/default's as the
// chart's), which rbac.aggregateToDefaultRoles=false removes and
// rbac.userRoles=false the roles with them.
func TestChartUserRoles(t *testing.T) {
	chart := render(t, chartDir)
	kz := kustomize(t, "config/default")
	for role, labels := range aggregation {
		name := release + "-" + role
		c, k := find(t, chart, "ClusterRole", name), find(t, kz, "ClusterRole", name)
		for _, l := range labels {
			if c.GetLabels()[l] != "true" {
				t.Errorf("the chart's %s lacks %s=true: %v", name, l, c.GetLabels())
			}
			if k.GetLabels()[l] != "true" {
				t.Errorf("config/default's %s lacks %s=true: %v", name, l, k.GetLabels())
			}
		}
		for _, o := range []*unstructured.Unstructured{c, k} {
			for l := range o.GetLabels() {
				if strings.HasPrefix(l, "rbac.authorization.k8s.io/aggregate-to-") && !slices.Contains(labels, l) {
					t.Errorf("%s carries %s: it would widen a built-in role it is not meant for", name, l)
				}
			}
			for _, p := range permissions(rulesOf(t, o)) {
				if p.group != "blastfleet.io" {
					t.Errorf("%s grants %+v; users' roles grant only blastfleet.io resources (the operator creates the rest)", name, p)
				}
			}
		}
	}

	for _, o := range render(t, chartDir, "--set", "rbac.aggregateToDefaultRoles=false") {
		for l := range o.GetLabels() {
			if strings.HasPrefix(l, "rbac.authorization.k8s.io/aggregate-to-") {
				t.Errorf("rbac.aggregateToDefaultRoles=false: %s/%s still carries %s", o.GetKind(), o.GetName(), l)
			}
		}
	}
	for _, o := range ofKind(render(t, chartDir, "--set", "rbac.userRoles=false"), "ClusterRole") {
		if o.GetName() == release+"-edit" || o.GetName() == release+"-view" {
			t.Errorf("rbac.userRoles=false still renders %s", o.GetName())
		}
	}
}
