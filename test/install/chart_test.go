package install

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Release name and namespace the rendering tests use; with release name
// "blastfleet" the chart's names equal config/default's.
const (
	release   = "blastfleet"
	releaseNS = "blastfleet-system"
)

// everyOptionalFeature turns on every optional template of the chart.
var everyOptionalFeature = []string{
	"--set", "serviceMonitor.enabled=true",
	"--set", "podMonitor.enabled=true",
	"--set", "prometheusRule.enabled=true",
	"--set", "dashboards.enabled=true",
	"--set", "networkPolicy.enabled=true",
	"--set", "argo.databaseTemplate.enabled=true",
	"--set", "podDisruptionBudget.enabled=true",
	"--set", "replicaCount=2", // a budget needs two replicas
	"--set", "metrics.readerSubjects[0].kind=ServiceAccount",
	"--set", "metrics.readerSubjects[0].name=prometheus",
	"--set", "metrics.readerSubjects[0].namespace=monitoring",
}

func render(t testing.TB, chart string, args ...string) []*unstructured.Unstructured {
	t.Helper()
	out := mustHelm(t, append([]string{"template", release, chart, "--namespace", releaseNS}, args...)...)
	return objects(t, out)
}

// The chart's CRDs are the ones controller-gen writes, templated by make
// chart-crds: one template per file of config/crd/bases, rendering the
// same object plus the chart's labels and, with crds.keep, the keep
// policy; crds.create=false renders none. A drift would install stale CRDs.
func TestChartCRDsAreConfigCRDs(t *testing.T) {
	bases, err := filepath.Glob(rootPath(t, crdBases+"/*.yaml"))
	if err != nil || len(bases) == 0 {
		t.Fatalf("no CRDs in %s: %v", crdBases, err)
	}
	templates, err := filepath.Glob(rootPath(t, chartCRDs+"/*"))
	if err != nil {
		t.Fatal(err)
	}
	names := func(paths []string) []string {
		var out []string
		for _, p := range paths {
			out = append(out, filepath.Base(p))
		}
		return out
	}
	if !slices.Equal(names(templates), names(bases)) {
		t.Fatalf("%s holds %v; %s holds %v (run make chart-crds)", chartCRDs, names(templates), crdBases, names(bases))
	}
	if _, err := os.Stat(rootPath(t, chartDir+"/crds")); !os.IsNotExist(err) {
		t.Errorf("%s/crds exists (%v): helm would install those CRDs before the templates', which then conflict", chartDir, err)
	}

	rendered := ofKind(render(t, chartDir), "CustomResourceDefinition")
	if len(rendered) != len(bases) {
		t.Errorf("the chart renders %d CRDs (%s); %s holds %d", len(rendered), describe(rendered), crdBases, len(bases))
	}
	for _, b := range bases {
		for _, want := range ofKind(objectsFromFile(t, b), "CustomResourceDefinition") {
			got := find(t, rendered, "CustomResourceDefinition", want.GetName())
			if got.GetAnnotations()[keepPolicy] != "keep" {
				t.Errorf("CRD %s: annotations %v lack %s: keep", got.GetName(), got.GetAnnotations(), keepPolicy)
			}
			if got.GetLabels()["app.kubernetes.io/instance"] != release {
				t.Errorf("CRD %s lacks the chart's labels: %v", got.GetName(), got.GetLabels())
			}
			if !deepEqual(withoutChartMetadata(got).Object, want.Object) {
				t.Errorf("CRD %s differs from %s (after make manifests, run make chart-crds)", got.GetName(), filepath.Base(b))
			}
		}
	}
	noKeep := ofKind(render(t, chartDir, "--set", "crds.keep=false"), "CustomResourceDefinition")
	if len(noKeep) != len(rendered) {
		t.Errorf("crds.keep=false renders %d CRDs, want %d", len(noKeep), len(rendered))
	}
	for _, c := range noKeep {
		if _, ok := c.GetAnnotations()[keepPolicy]; ok {
			t.Errorf("crds.keep=false: CRD %s still carries %s", c.GetName(), keepPolicy)
		}
	}
	if n := len(ofKind(render(t, chartDir, "--set", "crds.create=false"), "CustomResourceDefinition")); n != 0 {
		t.Errorf("crds.create=false renders %d CRDs", n)
	}
}

func TestHelmLint(t *testing.T) {
	for _, c := range []struct {
		chart string
		args  []string
	}{
		{chartDir, nil},
		{chartDir, everyOptionalFeature},
		{chartDir, []string{"--set", "operator.watchNamespace=research"}},
		{mpiChartDir, nil},
	} {
		out := mustHelm(t, append([]string{"lint", "--strict", c.chart}, c.args...)...)
		if !strings.Contains(out, "1 chart(s) linted, 0 chart(s) failed") {
			t.Errorf("helm lint %s %v:\n%s", c.chart, c.args, out)
		}
		for _, bad := range []string{"[WARNING]", "[ERROR]"} {
			if strings.Contains(out, bad) {
				t.Errorf("helm lint %s %v reports %s:\n%s", c.chart, c.args, bad, out)
			}
		}
	}
}

func TestHelmTemplateDefaults(t *testing.T) {
	objs := render(t, chartDir)
	want := []string{"ClusterRole", "ClusterRoleBinding", "ConfigMap", "CustomResourceDefinition", "Deployment", "Role", "RoleBinding", "Service", "ServiceAccount"}
	if got := kinds(objs); !slices.Equal(got, want) {
		t.Errorf("default values render kinds %v, want %v", got, want)
	}
	for _, o := range objs {
		switch o.GetKind() {
		case "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition":
			if o.GetNamespace() != "" {
				t.Errorf("%s/%s is cluster-scoped but has namespace %q", o.GetKind(), o.GetName(), o.GetNamespace())
			}
		default:
			if o.GetNamespace() != releaseNS {
				t.Errorf("%s/%s: namespace %q, want the release namespace", o.GetKind(), o.GetName(), o.GetNamespace())
			}
		}
		if l := o.GetLabels(); l["app.kubernetes.io/instance"] != release || l["app.kubernetes.io/part-of"] != "blastfleet" {
			t.Errorf("%s/%s lacks the standard labels: %v", o.GetKind(), o.GetName(), l)
		}
	}

	var d appsv1.Deployment
	into(t, find(t, objs, "Deployment", release).Object, &d)
	checkManagerPod(t, "chart", d.Spec.Template.Spec)
	c := d.Spec.Template.Spec.Containers[0]
	if !slices.Equal(c.Args, configArgs) {
		t.Errorf("manager args %v, want %v (the rest is in the configuration file)", c.Args, configArgs)
	}
	if cfg, _ := managerConfig(t, objs); !cfg.LeaderElection.LeaderElect || cfg.Health.HealthProbeBindAddress != ":8081" ||
		cfg.Metrics.BindAddress != ":8443" || !cfg.Metrics.Secure || cfg.WorkerImage != "ghcr.io/blastfleet/worker:v0.1.0" {
		t.Errorf("configuration %+v: want leader election, probes on :8081, secure metrics on :8443, the appVersion's worker image", cfg)
	}
	if c.Image != "ghcr.io/blastfleet/operator:v0.1.0" {
		t.Errorf("image %s, want the chart's appVersion tag", c.Image)
	}
	if d.Spec.Template.Spec.ServiceAccountName != find(t, objs, "ServiceAccount", "").GetName() {
		t.Errorf("the Deployment runs as %q, not the chart's ServiceAccount", d.Spec.Template.Spec.ServiceAccountName)
	}

	var svc corev1.Service
	into(t, find(t, objs, "Service", release+"-metrics").Object, &svc)
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Port != 8443 || svc.Spec.Ports[0].TargetPort.String() != "https" {
		t.Errorf("metrics Service ports %+v, want 8443 -> https", svc.Spec.Ports)
	}
	for k, v := range svc.Spec.Selector {
		if d.Spec.Template.Labels[k] != v {
			t.Errorf("metrics Service selects %s=%s, which the operator's pods do not carry", k, v)
		}
	}
}

// checkManagerPod checks the settings the issue asks of the operator's pod.
func checkManagerPod(t *testing.T, what string, pod corev1.PodSpec) {
	t.Helper()
	if len(pod.Containers) != 1 {
		t.Fatalf("%s: %d containers, want 1", what, len(pod.Containers))
	}
	c := pod.Containers[0]
	psc := pod.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot {
		t.Errorf("%s: pod securityContext %+v lacks runAsNonRoot: true", what, psc)
	}
	if psc == nil || psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("%s: pod seccomp profile is not RuntimeDefault", what)
	}
	sc := c.SecurityContext
	switch {
	case sc == nil:
		t.Fatalf("%s: container has no securityContext", what)
	case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
		t.Errorf("%s: allowPrivilegeEscalation is not false", what)
	case sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
		t.Errorf("%s: readOnlyRootFilesystem is not true", what)
	case sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) > 0:
		t.Errorf("%s: capabilities %+v, want drop ALL and add none", what, sc.Capabilities)
	case sc.Privileged != nil && *sc.Privileged:
		t.Errorf("%s: privileged", what)
	}
	for _, p := range []struct {
		probe *corev1.Probe
		path  string
	}{{c.LivenessProbe, "/healthz"}, {c.ReadinessProbe, "/readyz"}} {
		if p.probe == nil || p.probe.HTTPGet == nil || p.probe.HTTPGet.Path != p.path {
			t.Errorf("%s: no %s probe", what, p.path)
			continue
		}
		port := p.probe.HTTPGet.Port
		if port.IntValue() != 8081 && !slices.ContainsFunc(c.Ports, func(cp corev1.ContainerPort) bool {
			return cp.Name == port.String() && cp.ContainerPort == 8081
		}) {
			t.Errorf("%s: %s probe on %s, not :8081", what, p.path, port.String())
		}
	}
	if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() {
		t.Errorf("%s: resources %+v lack CPU and memory requests or a memory limit", what, c.Resources)
	}
}

func TestHelmTemplateEveryOptionalFeature(t *testing.T) {
	objs := render(t, chartDir, everyOptionalFeature...)
	for _, k := range []string{"ServiceMonitor", "PodMonitor", "PrometheusRule", "NetworkPolicy", "WorkflowTemplate", "PodDisruptionBudget"} {
		if len(ofKind(objs, k)) != 1 {
			t.Errorf("every optional feature on: %d %s, want 1", len(ofKind(objs, k)), k)
		}
	}
	sm := find(t, objs, "ServiceMonitor", "")
	svc := find(t, objs, "Service", release+"-metrics")
	sel, _, _ := unstructured.NestedStringMap(sm.Object, "spec", "selector", "matchLabels")
	for k, v := range sel {
		if svc.GetLabels()[k] != v {
			t.Errorf("ServiceMonitor selects %s=%s, which the metrics Service does not carry", k, v)
		}
	}
	eps, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
	if len(eps) != 1 || eps[0].(map[string]any)["port"] != "https" || eps[0].(map[string]any)["scheme"] != "https" {
		t.Errorf("ServiceMonitor endpoints %v, want the https port over https", eps)
	}

	pm := find(t, objs, "PodMonitor", "")
	pmEps, _, _ := unstructured.NestedSlice(pm.Object, "spec", "podMetricsEndpoints")
	if len(pmEps) != 1 || fmt.Sprint(pmEps[0].(map[string]any)["portNumber"]) != "9090" {
		t.Errorf("PodMonitor endpoints %v, want portNumber 9090 (engineMetricsPort's default)", pmEps)
	}
	pm = find(t, render(t, chartDir, "--set", "podMonitor.enabled=true", "--set", "podMonitor.engineMetricsPort=9400"), "PodMonitor", "")
	pmEps, _, _ = unstructured.NestedSlice(pm.Object, "spec", "podMetricsEndpoints")
	if fmt.Sprint(pmEps[0].(map[string]any)["portNumber"]) != "9400" {
		t.Errorf("podMonitor.engineMetricsPort=9400 renders %v", pmEps)
	}

	rule := find(t, objs, "PrometheusRule", "")
	groups, _, _ := unstructured.NestedSlice(rule.Object, "spec", "groups")
	alerts := 0
	for _, g := range groups {
		for _, r := range g.(map[string]any)["rules"].([]any) {
			r := r.(map[string]any)
			alerts++
			if r["alert"] == "" || r["expr"] == "" {
				t.Errorf("rule without alert or expr: %v", r)
			}
			if sev, _, _ := unstructured.NestedString(r, "labels", "severity"); sev == "" {
				t.Errorf("alert %v has no severity", r["alert"])
			}
			// Alerts must query the operator's metrics as named in
			// docs/operator.md and its own scrape job.
			if !strings.Contains(r["expr"].(string), `job="`+release+`-metrics"`) {
				t.Errorf("alert %v does not select the operator's job: %s", r["alert"], r["expr"])
			}
		}
	}
	if alerts == 0 {
		t.Error("PrometheusRule has no alerts")
	}

	np := find(t, objs, "NetworkPolicy", "")
	npSel, _, _ := unstructured.NestedStringMap(np.Object, "spec", "podSelector", "matchLabels")
	dep := find(t, objs, "Deployment", release)
	podLabels, _, _ := unstructured.NestedStringMap(dep.Object, "spec", "template", "metadata", "labels")
	for k, v := range npSel {
		if podLabels[k] != v {
			t.Errorf("NetworkPolicy selects %s=%s, which the operator's pods do not carry", k, v)
		}
	}

	binding := find(t, objs, "ClusterRoleBinding", release+"-metrics-reader")
	var crb rbacv1.ClusterRoleBinding
	into(t, binding.Object, &crb)
	if crb.RoleRef.Name != release+"-metrics-reader" || len(crb.Subjects) != 1 || crb.Subjects[0].Name != "prometheus" {
		t.Errorf("metrics.readerSubjects renders %+v", crb)
	}
}

// helm template with a wrong type fails on values.schema.json.
func TestValuesSchemaRejectsWrongTypes(t *testing.T) {
	for _, set := range []string{
		"replicaCount=abc",
		"replicaCount=-1",
		"image.pullPolicy=Sometimes",
		"metrics.port=99999",
		"metrics.enabled=yes",
		"operator.partitionTTL=forever",
		"operator.logLevel=verbose",
		"podMonitor.engineMetricsPort=http",
		"serviceMonitor.enabled=1",
		"resources=big",
		"imagePullSecrets=regcred",
		"replicaCont=2", // a typo: unknown keys are rejected too
		"crds.create=yes",
		"crds.keep=1",
		"crds.upgrade=true",
		"podDisruptionBudget.minAvailable=one",
		"podDisruptionBudget.maxUnavailable=-1",
		"podDisruptionBudget.unhealthyPodEvictionPolicy=Never",
	} {
		_, err := helm(t, "template", release, chartDir, "--set", set)
		if err == nil {
			t.Errorf("helm template --set %s succeeded; the schema should reject it", set)
			continue
		}
		if !strings.Contains(err.Error(), "values don't meet the specifications of the schema") {
			t.Errorf("helm template --set %s failed, but not on the schema: %v", set, err)
		}
	}
	for _, set := range []string{"replicaCount=2", "operator.partitionTTL=90m", "image.digest=sha256:" + strings.Repeat("a", 64)} {
		if _, err := helm(t, "template", release, chartDir, "--set", set); err != nil {
			t.Errorf("helm template --set %s: %v", set, err)
		}
	}
}

// The chart's RBAC is the operator's markers' rules and nothing more.
func TestChartRBACMatchesMarkers(t *testing.T) {
	markers := permissions(generatedRules(t))
	objs := render(t, chartDir, everyOptionalFeature...)

	manager := find(t, objs, "ClusterRole", release+"-manager")
	if got := permissions(rulesOf(t, manager)); !slices.Equal(got, markers) {
		t.Errorf("the chart's manager ClusterRole differs from %s (controller-gen, from the +kubebuilder:rbac markers): %s",
			generatedRole, diffPermissions(got, markers))
	}
	for _, p := range markers {
		// get: the Secrets campaigns name; create: Argo's executor token
		// (controllers/executor/argo/rbac.go). Never list, watch or update.
		if p.resource == "secrets" && p.verb != "get" && p.verb != "create" {
			t.Errorf("the markers grant %s on secrets; the operator only gets the Secrets campaigns name and creates Argo's executor token", p.verb)
		}
	}

	// Every other role is one of the fixed ones below, exactly.
	fixed := map[string][]rbacv1.PolicyRule{
		"Role/" + release + "-leader-election": {
			{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}},
			{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}},
		},
		"ClusterRole/" + release + "-metrics-auth": {
			{APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"tokenreviews"}, Verbs: []string{"create"}},
			{APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"subjectaccessreviews"}, Verbs: []string{"create"}},
		},
		"ClusterRole/" + release + "-metrics-reader": {
			{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}},
		},
		"ClusterRole/" + release + "-manager": generatedRules(t),
		"ClusterRole/" + release + "-edit":    userEditRules,
		"ClusterRole/" + release + "-view":    userViewRules,
	}
	seen := 0
	for _, o := range append(ofKind(objs, "Role"), ofKind(objs, "ClusterRole")...) {
		key := o.GetKind() + "/" + o.GetName()
		want, ok := fixed[key]
		if !ok {
			t.Errorf("the chart renders %s, which no test vouches for", key)
			continue
		}
		seen++
		if got := permissions(rulesOf(t, o)); !slices.Equal(got, permissions(want)) {
			t.Errorf("%s: %s", key, diffPermissions(got, permissions(want)))
		}
		if o.GetKind() == "Role" && o.GetNamespace() != releaseNS {
			t.Errorf("%s is in namespace %q, not the release's", key, o.GetNamespace())
		}
	}
	if seen != len(fixed) {
		t.Errorf("found %d of the %d expected roles", seen, len(fixed))
	}
	// Every binding names a role the chart renders, for the chart's
	// ServiceAccount (or the configured scrapers).
	sa := find(t, objs, "ServiceAccount", "").GetName()
	for _, o := range append(ofKind(objs, "RoleBinding"), ofKind(objs, "ClusterRoleBinding")...) {
		var b rbacv1.RoleBinding
		into(t, o.Object, &b)
		if _, ok := fixed[b.RoleRef.Kind+"/"+b.RoleRef.Name]; !ok {
			t.Errorf("%s/%s binds %s/%s, which the chart does not render", o.GetKind(), o.GetName(), b.RoleRef.Kind, b.RoleRef.Name)
		}
		if b.RoleRef.Name != release+"-metrics-reader" && (len(b.Subjects) != 1 || b.Subjects[0].Name != sa || b.Subjects[0].Namespace != releaseNS) {
			t.Errorf("%s/%s binds %+v, not the operator's ServiceAccount", o.GetKind(), o.GetName(), b.Subjects)
		}
	}

	// Watching one namespace: the same rules, as a Role there.
	objs = render(t, chartDir, "--set", "operator.watchNamespace=research")
	for _, o := range ofKind(objs, "ClusterRole") {
		if o.GetName() == release+"-manager" {
			t.Error("operator.watchNamespace still renders a manager ClusterRole")
		}
	}
	role := find(t, objs, "Role", release+"-manager")
	if role.GetNamespace() != "research" {
		t.Errorf("manager Role in %q, want the watched namespace", role.GetNamespace())
	}
	if got := permissions(rulesOf(t, role)); !slices.Equal(got, markers) {
		t.Errorf("namespaced manager Role: %s", diffPermissions(got, markers))
	}
	rb := find(t, objs, "RoleBinding", release+"-manager")
	if rb.GetNamespace() != "research" {
		t.Errorf("manager RoleBinding in %q, want the watched namespace", rb.GetNamespace())
	}
	// Nothing cluster-wide lets the operator read Secrets then.
	for _, o := range ofKind(objs, "ClusterRole") {
		for _, p := range permissions(rulesOf(t, o)) {
			if p.resource == "secrets" {
				t.Errorf("with operator.watchNamespace, ClusterRole %s still grants %s on secrets", o.GetName(), p.verb)
			}
		}
	}
	if cfg, fields := managerConfig(t, objs); cfg.Namespace != "research" || fields["namespaceSelector"] != nil {
		t.Errorf("operator.watchNamespace: configuration namespace %q, namespaceSelector %v; want research and none", cfg.Namespace, fields["namespaceSelector"])
	}
}

// Every JSON file under charts/blastfleet/dashboards becomes one ConfigMap
// labelled for Grafana's sidecar.
func TestDashboardsShipEveryJSONFile(t *testing.T) {
	// The chart as it is: one ConfigMap per JSON file it holds.
	jsons, _ := filepath.Glob(rootPath(t, chartDir+"/dashboards/*.json"))
	if got := len(dashboardConfigMaps(render(t, chartDir, "--set", "dashboards.enabled=true"))); got != len(jsons) || got == 0 {
		t.Errorf("%d dashboard ConfigMaps for %d JSON files", got, len(jsons))
	}

	// A copy with two more dashboards, with names to normalize, shows the
	// templating ships each file whole.
	dir := copyDir(t, rootPath(t, chartDir))
	files := map[string]string{
		"Campaigns.json":      `{"title": "Campaigns", "panels": [{"type": "stat", "expr": "sum(blastfleet_campaigns)"}]}`,
		"engine_workers.json": "{\n  \"title\": \"Engine workers\",\n  \"panels\": []\n}\n",
	}
	for _, p := range jsons {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Base(p)] = string(b)
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, "dashboards", name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if cms := dashboardConfigMaps(render(t, dir)); len(cms) != 0 {
		t.Errorf("dashboards.enabled=false renders %d ConfigMaps", len(cms))
	}
	cms := dashboardConfigMaps(render(t, dir, "--set", "dashboards.enabled=true"))
	if len(cms) != len(files) {
		t.Fatalf("%d ConfigMaps for %d dashboards: %s", len(cms), len(files), describe(cms))
	}
	for _, cm := range cms {
		if cm.GetLabels()["grafana_dashboard"] != "1" {
			t.Errorf("%s lacks grafana_dashboard: \"1\": %v", cm.GetName(), cm.GetLabels())
		}
		if !regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`).MatchString(cm.GetName()) {
			t.Errorf("ConfigMap name %q is not a DNS label", cm.GetName())
		}
		data, _, _ := unstructured.NestedStringMap(cm.Object, "data")
		if len(data) != 1 {
			t.Fatalf("%s holds %d files", cm.GetName(), len(data))
		}
		for name, body := range data {
			if strings.TrimSpace(body) != strings.TrimSpace(files[name]) {
				t.Errorf("%s: %s is %q, want the file's content", cm.GetName(), name, body)
			}
		}
	}
}

// values.yaml is documented line by line: every key has a comment above
// it, or is part of a value whose comment ("# -- ...") documents it whole,
// or only groups documented keys.
func TestValuesDocumented(t *testing.T) {
	for _, chart := range []string{chartDir, mpiChartDir, stackChartDir} {
		b, err := os.ReadFile(rootPath(t, chart+"/values.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		for _, key := range undocumentedKeys(string(b)) {
			t.Errorf("%s/values.yaml: %s has no comment", chart, key)
		}
	}
}

type valuesKey struct {
	indent    int
	path      string
	commented bool // a comment line directly above
	whole     bool // that comment documents the whole value ("# -- ")
	children  []*valuesKey
}

var keyLine = regexp.MustCompile(`^( *)([A-Za-z0-9_.-]+):`)

func undocumentedKeys(values string) []string {
	rootKey := &valuesKey{indent: -1}
	stack := []*valuesKey{rootKey}
	var comment []string
	inList := -1 // indent of a list whose items are values, not keys
	for _, line := range strings.Split(values, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
			comment = nil
			continue
		case strings.HasPrefix(trimmed, "#"):
			comment = append(comment, trimmed)
			continue
		}
		indent := len(line) - len(strings.TrimLeft(line, " "))
		if strings.HasPrefix(trimmed, "- ") || trimmed == "-" {
			inList = indent
			comment = nil
			continue
		}
		if inList >= 0 && indent > inList {
			comment = nil
			continue // a key inside a list item: part of a value
		}
		inList = -1
		m := keyLine.FindStringSubmatch(line)
		if m == nil {
			comment = nil
			continue
		}
		for len(stack) > 1 && stack[len(stack)-1].indent >= indent {
			stack = stack[:len(stack)-1]
		}
		parent := stack[len(stack)-1]
		k := &valuesKey{indent: indent, path: strings.TrimPrefix(parent.path+"."+m[2], "."), commented: len(comment) > 0}
		k.whole = k.commented && strings.HasPrefix(comment[0], "# --")
		parent.children = append(parent.children, k)
		stack = append(stack, k)
		comment = nil
	}
	var missing []string
	var walk func(k *valuesKey, covered bool) bool
	walk = func(k *valuesKey, covered bool) bool {
		covered = covered || k.whole
		all := true
		for _, c := range k.children {
			if !walk(c, covered) {
				all = false
			}
		}
		ok := covered || k.commented || (len(k.children) > 0 && all)
		if !ok && k.path != "" && len(k.children) == 0 {
			missing = append(missing, k.path)
		}
		return ok
	}
	for _, c := range rootKey.children {
		walk(c, false)
	}
	return missing
}

// checkNotes checks the notes helm install prints tell how to run a first
// campaign, with sample files that exist.
func checkNotes(t *testing.T, installOutput string) {
	t.Helper()
	i := strings.Index(installOutput, "NOTES:")
	if i < 0 {
		t.Fatalf("helm install printed no notes:\n%s", installOutput)
	}
	notes := installOutput[i:]
	for _, want := range []string{"get bsc", "get bdb", "kubectl get crd mpijobs.kubeflow.org", "rollout status deployment/", "kubectl label secret NAME blastfleet.io/credentials=true"} {
		if !strings.Contains(notes, want) {
			t.Errorf("NOTES lack %q:\n%s", want, notes)
		}
	}
	// The samples' kustomization, applied as README applies it.
	if !strings.Contains(notes, "apply -k config/samples/") {
		t.Errorf("NOTES do not apply the samples with apply -k config/samples/:\n%s", notes)
	}
	if _, err := os.Stat(rootPath(t, "config/samples/kustomization.yaml")); err != nil {
		t.Errorf("NOTES apply config/samples: %v", err)
	}
}

// copyDir copies a directory tree into a temporary directory.
func copyDir(t testing.TB, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestArgoDatabaseTemplate: the chart's WorkflowTemplate runs the
// operator's database build (verify, a shard step per shard requiring the
// verified sha256, the manifest last) in pods that pass the restricted
// Pod Security Standard; off by default (it needs Argo's CRDs).
func TestArgoDatabaseTemplate(t *testing.T) {
	if n := len(ofKind(render(t, chartDir), "WorkflowTemplate")); n != 0 {
		t.Errorf("%d WorkflowTemplates by default, want none", n)
	}
	wt := find(t, render(t, chartDir, "--set", "argo.databaseTemplate.enabled=true", "--set", "argo.databaseTemplate.namespace=research"), "WorkflowTemplate", "")
	if wt.GetNamespace() != "research" {
		t.Errorf("WorkflowTemplate in %q, want research", wt.GetNamespace())
	}
	steps, _, _ := unstructured.NestedSlice(wt.Object, "spec", "templates")
	var modes []string
	for _, group := range steps[0].(map[string]any)["steps"].([]any) {
		st := group.([]any)[0].(map[string]any)
		params := st["arguments"].(map[string]any)["parameters"].([]any)
		modes = append(modes, st["name"].(string)+": "+params[0].(map[string]any)["value"].(string))
	}
	want := []string{"verify: --verify",
		"shard: --shard-index={{item}} --source-sha256={{steps.verify.outputs.result}}",
		"manifest: --finish --source-sha256={{steps.verify.outputs.result}}"}
	if strings.Join(modes, "\n") != strings.Join(want, "\n") {
		t.Errorf("steps:\n%s\nwant:\n%s", strings.Join(modes, "\n"), strings.Join(want, "\n"))
	}
	c := steps[1].(map[string]any)["container"].(map[string]any)
	args := fmt.Sprint(c["args"])
	for _, flag := range []string{"blastfleet db shard", `--input "$SOURCE"`, `--shards "$SHARDS"`, `--output "$OUTPUT"`, "--work-dir /scratch", "{{inputs.parameters.mode}}"} {
		if !strings.Contains(args, flag) {
			t.Errorf("container args %s lack %s", args, flag)
		}
	}
	sc := c["securityContext"].(map[string]any)
	if sc["allowPrivilegeEscalation"] != false || sc["readOnlyRootFilesystem"] != true {
		t.Errorf("securityContext %v, want restricted", sc)
	}
	psc, _, _ := unstructured.NestedMap(wt.Object, "spec", "securityContext")
	if psc["runAsNonRoot"] != true || psc["seccompProfile"] == nil {
		t.Errorf("pod securityContext %v, want restricted", psc)
	}
}

// operator.caBundle mounts the ConfigMap's key read-only and points the
// configuration's caBundle at it; the identity policy values reach the
// configuration; by default none of them is there.
func TestHelmTemplateOperatorCAAndIdentity(t *testing.T) {
	objs := render(t, chartDir, "--set", "operator.caBundle.configMap=corp-ca", "--set", "operator.caBundle.key=bundle.pem",
		"--set", "policy.allowOperatorIdentity=true", "--set", "policy.allowedServiceAccounts={blast-irsa,blast-pod}")
	var d appsv1.Deployment
	into(t, find(t, objs, "Deployment", release).Object, &d)
	c := d.Spec.Template.Spec.Containers[0]
	cfg, _ := managerConfig(t, objs)
	if cfg.CABundle != "/etc/blastfleet/operator-ca/ca.pem" || !cfg.Policy.AllowOperatorIdentity || !slices.Equal(cfg.Policy.AllowedServiceAccounts, []string{"blast-irsa", "blast-pod"}) {
		t.Errorf("configuration caBundle %q, policy %+v", cfg.CABundle, cfg.Policy)
	}
	vol := slices.IndexFunc(d.Spec.Template.Spec.Volumes, func(v corev1.Volume) bool { return v.Name == "operator-ca" })
	mount := slices.IndexFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.Name == "operator-ca" })
	if vol < 0 || mount < 0 {
		t.Fatalf("no operator-ca volume and mount: volumes %+v mounts %+v", d.Spec.Template.Spec.Volumes, c.VolumeMounts)
	}
	v, m := d.Spec.Template.Spec.Volumes[vol], c.VolumeMounts[mount]
	if v.ConfigMap == nil || v.ConfigMap.Name != "corp-ca" || v.ConfigMap.Items[0].Key != "bundle.pem" || v.ConfigMap.Items[0].Path != "ca.pem" ||
		m.MountPath != "/etc/blastfleet/operator-ca" || !m.ReadOnly {
		t.Errorf("volume %+v mount %+v", v, m)
	}
	def := render(t, chartDir)
	var dd appsv1.Deployment
	into(t, find(t, def, "Deployment", release).Object, &dd)
	cfg, _ = managerConfig(t, def)
	if cfg.CABundle != "" || cfg.Policy.AllowOperatorIdentity || len(dd.Spec.Template.Spec.Volumes) != 1 {
		t.Errorf("defaults: caBundle %q, policy %+v, volumes %+v; want only the configuration's", cfg.CABundle, cfg.Policy, dd.Spec.Template.Spec.Volumes)
	}
}
