package install

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func kustomize(t testing.TB, dir string) []*unstructured.Unstructured {
	t.Helper()
	out, err := kubectl(t, "", "kustomize", dir)
	if err != nil {
		t.Fatal(err)
	}
	return objects(t, out)
}

// prometheusOverlay is config/prometheus as config/default would include
// it (namespace and name prefix), in a temporary kustomization.
func prometheusOverlay(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	rel, err := filepath.Rel(dir, rootPath(t, "config/prometheus")) // kustomize refuses absolute roots
	if err != nil {
		t.Fatal(err)
	}
	k := fmt.Sprintf("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: %s\nnamePrefix: blastfleet-\nresources:\n- %s\n",
		releaseNS, rel)
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(k), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// kubectl kustomize config/default renders the chart's objects: the same
// CRDs, the same RBAC, an equivalent Deployment, configuration and
// metrics Service.
func TestKustomizeMatchesChart(t *testing.T) {
	kz := kustomize(t, "config/default")
	chart := render(t, chartDir)

	wantKinds := append(kinds(chart), "Namespace")
	slices.Sort(wantKinds)
	if got := kinds(kz); !slices.Equal(got, wantKinds) {
		t.Errorf("config/default renders kinds %v; the chart %v (plus the Namespace)", got, wantKinds)
	}
	for _, o := range kz {
		switch o.GetKind() {
		case "Namespace":
			if o.GetName() != releaseNS {
				t.Errorf("Namespace %s, want %s", o.GetName(), releaseNS)
			}
		case "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding":
		default:
			if o.GetNamespace() != releaseNS {
				t.Errorf("%s/%s in namespace %q, want %s", o.GetKind(), o.GetName(), o.GetNamespace(), releaseNS)
			}
		}
	}

	// CRDs: identical objects, but for the labels and keep policy the chart
	// adds.
	crds := ofKind(kz, "CustomResourceDefinition")
	if len(crds) != len(ofKind(chart, "CustomResourceDefinition")) {
		t.Errorf("config/default has %d CRDs, the chart %d", len(crds), len(ofKind(chart, "CustomResourceDefinition")))
	}
	for _, c := range crds {
		if !deepEqual(c.Object, withoutChartMetadata(find(t, chart, "CustomResourceDefinition", c.GetName())).Object) {
			t.Errorf("CRD %s differs between config/default and the chart", c.GetName())
		}
	}

	// RBAC: the same roles, by name, granting the same; the manager's are
	// exactly the markers'.
	markers := permissions(generatedRules(t))
	for _, kind := range []string{"Role", "ClusterRole"} {
		k, c := ofKind(kz, kind), ofKind(chart, kind)
		if len(k) != len(c) {
			t.Errorf("config/default has %d %ss (%s), the chart %d (%s)", len(k), kind, describe(k), len(c), describe(c))
		}
		for _, o := range k {
			co := find(t, chart, kind, o.GetName())
			if got, want := permissions(rulesOf(t, o)), permissions(rulesOf(t, co)); !slices.Equal(got, want) {
				t.Errorf("%s %s: config/default vs chart: %s", kind, o.GetName(), diffPermissions(got, want))
			}
		}
	}
	if got := permissions(rulesOf(t, find(t, kz, "ClusterRole", "blastfleet-manager"))); !slices.Equal(got, markers) {
		t.Errorf("config/default's manager ClusterRole vs %s: %s", generatedRole, diffPermissions(got, markers))
	}
	sa := find(t, kz, "ServiceAccount", "")
	for _, kind := range []string{"RoleBinding", "ClusterRoleBinding"} {
		k, c := ofKind(kz, kind), ofKind(chart, kind)
		if len(k) != len(c) {
			t.Errorf("config/default has %d %ss, the chart %d", len(k), kind, len(c))
		}
		for _, o := range k {
			ref, _, _ := unstructured.NestedStringMap(o.Object, "roleRef")
			cref, _, _ := unstructured.NestedStringMap(find(t, chart, kind, o.GetName()).Object, "roleRef")
			if !deepEqual(ref, cref) {
				t.Errorf("%s %s binds %v; the chart's %v", kind, o.GetName(), ref, cref)
			}
			subjects, _, _ := unstructured.NestedSlice(o.Object, "subjects")
			want := []any{map[string]any{"kind": "ServiceAccount", "name": sa.GetName(), "namespace": releaseNS}}
			if !deepEqual(subjects, want) {
				t.Errorf("%s %s binds %v, want the ServiceAccount %s", kind, o.GetName(), subjects, sa.GetName())
			}
		}
	}

	// The Deployment: the same security settings, probes, ports, flags,
	// image and resources.
	var kd, cd appsv1.Deployment
	into(t, find(t, kz, "Deployment", "").Object, &kd)
	into(t, find(t, chart, "Deployment", "").Object, &cd)
	checkManagerPod(t, "config/default", kd.Spec.Template.Spec)
	kp, cp := kd.Spec.Template.Spec, cd.Spec.Template.Spec
	if kp.ServiceAccountName != sa.GetName() {
		t.Errorf("config/default's Deployment runs as %q, not its ServiceAccount %q", kp.ServiceAccountName, sa.GetName())
	}
	kc, cc := kp.Containers[0], cp.Containers[0]
	for _, f := range []struct {
		what string
		a, b any
	}{
		{"pod securityContext", kp.SecurityContext, cp.SecurityContext},
		{"container securityContext", kc.SecurityContext, cc.SecurityContext},
		{"liveness probe", kc.LivenessProbe, cc.LivenessProbe},
		{"readiness probe", kc.ReadinessProbe, cc.ReadinessProbe},
		{"ports", kc.Ports, cc.Ports},
		{"command", kc.Command, cc.Command},
		{"args", sorted(kc.Args), sorted(cc.Args)},
		{"image", kc.Image, cc.Image},
		{"resources", kc.Resources, cc.Resources},
		{"replicas", kd.Spec.Replicas, cd.Spec.Replicas},
		{"terminationGracePeriodSeconds", kp.TerminationGracePeriodSeconds, cp.TerminationGracePeriodSeconds},
	} {
		if !deepEqual(f.a, f.b) {
			t.Errorf("Deployment %s: config/default %+v, chart %+v", f.what, f.a, f.b)
		}
	}

	// The configuration file: config/manager's gives the manager the
	// settings the chart's default values give it.
	kcfg, _ := managerConfig(t, kz)
	ccfg, _ := managerConfig(t, chart)
	if !reflect.DeepEqual(kcfg, ccfg) {
		t.Errorf("configuration: config/default\n%+v\nchart\n%+v", kcfg, ccfg)
	}

	// The metrics Service: same ports, selecting the Deployment's pods.
	ks, cs := find(t, kz, "Service", ""), find(t, chart, "Service", "")
	kports, _, _ := unstructured.NestedSlice(ks.Object, "spec", "ports")
	cports, _, _ := unstructured.NestedSlice(cs.Object, "spec", "ports")
	if !deepEqual(kports, cports) {
		t.Errorf("metrics Service ports: config/default %v, chart %v", kports, cports)
	}
	sel, _, _ := unstructured.NestedStringMap(ks.Object, "spec", "selector")
	for k, v := range sel {
		if kd.Spec.Template.Labels[k] != v {
			t.Errorf("config/default's metrics Service selects %s=%s, which its pods do not carry", k, v)
		}
	}

	// config/prometheus: the chart's ServiceMonitor endpoint, selecting
	// config/default's metrics Service.
	sm := find(t, kustomize(t, prometheusOverlay(t)), "ServiceMonitor", "")
	csm := find(t, render(t, chartDir, "--set", "serviceMonitor.enabled=true"), "ServiceMonitor", "")
	keps, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
	ceps, _, _ := unstructured.NestedSlice(csm.Object, "spec", "endpoints")
	if !deepEqual(keps, ceps) {
		t.Errorf("ServiceMonitor endpoints: config/prometheus %v, chart %v", keps, ceps)
	}
	smSel, _, _ := unstructured.NestedStringMap(sm.Object, "spec", "selector", "matchLabels")
	for k, v := range smSel {
		if ks.GetLabels()[k] != v {
			t.Errorf("config/prometheus selects %s=%s, which config/default's metrics Service does not carry", k, v)
		}
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
