package install

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// alertsFile is the alerts' one source; the chart's PrometheusRule wraps
// its groups.
const alertsFile = chartDir + "/files/alerts.yaml"

// alertGroups renders the chart's PrometheusRule and returns its groups.
func alertGroups(t *testing.T, args ...string) []any {
	t.Helper()
	rule := find(t, render(t, chartDir, append([]string{"--set", "prometheusRule.enabled=true"}, args...)...), "PrometheusRule", "")
	groups, _, _ := unstructured.NestedSlice(rule.Object, "spec", "groups")
	return groups
}

// The PrometheusRule holds files/alerts.yaml's groups, with the
// operator's job selector rewritten to the chart's scrape job, and
// promtool accepts them.
func TestPrometheusRuleIsTheAlertsFile(t *testing.T) {
	src := strings.ReplaceAll(string(readRoot(t, alertsFile)), `job="blastfleet-operator"`, `job="`+release+`-metrics"`)
	var want map[string]any
	if err := yaml.Unmarshal([]byte(src), &want); err != nil {
		t.Fatal(err)
	}
	groups := alertGroups(t)
	if !deepEqual(groups, want["groups"]) {
		got, _ := yaml.Marshal(groups)
		t.Errorf("the PrometheusRule's groups differ from %s (job rewritten):\n%s", alertsFile, got)
	}
	if strings.Contains(mustYAML(t, groups), "blastfleet-operator") {
		t.Error("the PrometheusRule still selects job blastfleet-operator")
	}

	// promtool checks the rendered groups as a rules file.
	testenv.RequireTools(t, "promtool")
	p := filepath.Join(t.TempDir(), "rules.yaml")
	if err := os.WriteFile(p, []byte(mustYAML(t, map[string]any{"groups": groups})), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("promtool", "check", "rules", p).CombinedOutput(); err != nil || !strings.Contains(string(out), "SUCCESS") {
		t.Errorf("promtool check rules on the chart's PrometheusRule: %v\n%s", err, out)
	}
}

// prometheusRule.stalledMinutes and alertLabels reach the alerts.
func TestPrometheusRuleValues(t *testing.T) {
	groups := alertGroups(t, "--set", "prometheusRule.stalledMinutes=45", "--set", "prometheusRule.alertLabels.team=blast",
		"--set", "prometheusRule.alertLabels.severity=page")
	found := false
	for _, g := range groups {
		for _, r := range g.(map[string]any)["rules"].([]any) {
			r := r.(map[string]any)
			labels, _ := r["labels"].(map[string]any)
			if labels["team"] != "blast" || labels["severity"] != "page" {
				t.Errorf("alert %v labels %v, want team=blast and severity=page added", r["alert"], labels)
			}
			if r["alert"] == "BlastfleetCampaignStalled" {
				found = true
				summary, _, _ := unstructured.NestedString(r, "annotations", "summary")
				if r["for"] != "45m" || !strings.Contains(summary, "45 minutes") {
					t.Errorf("stalledMinutes=45: for %v, summary %q", r["for"], summary)
				}
			}
		}
	}
	if !found {
		t.Error("no BlastfleetCampaignStalled alert")
	}
}

// config/prometheus (kustomize) holds the chart's PrometheusRule and
// PodMonitor: the same spec as the chart renders with release blastfleet.
func TestKustomizeMonitoringMatchesChart(t *testing.T) {
	kz := kustomize(t, prometheusOverlay(t))
	chart := render(t, chartDir, "--set", "prometheusRule.enabled=true", "--set", "podMonitor.enabled=true")
	for _, kind := range []string{"PrometheusRule", "PodMonitor"} {
		k, c := find(t, kz, kind, ""), find(t, chart, kind, "")
		if !deepEqual(k.Object["spec"], c.Object["spec"]) {
			t.Errorf("%s spec: config/prometheus differs from the chart's (render it again: see config/prometheus/prometheusrule.yaml)\nconfig/prometheus: %s\nchart: %s",
				kind, mustYAML(t, k.Object["spec"]), mustYAML(t, c.Object["spec"]))
		}
		if k.GetNamespace() != releaseNS {
			t.Errorf("%s in namespace %q, want %s", kind, k.GetNamespace(), releaseNS)
		}
	}
}

// config/grafana (kustomize) generates the chart's dashboard ConfigMaps:
// same names, sidecar label, folder annotation and data.
func TestKustomizeDashboardsMatchChart(t *testing.T) {
	kz := ofKind(kustomize(t, "config/grafana"), "ConfigMap")
	chart := dashboardConfigMaps(render(t, chartDir, "--set", "dashboards.enabled=true"))
	if len(chart) == 0 || len(kz) != len(chart) {
		t.Fatalf("config/grafana renders %d ConfigMaps (%s), the chart %d (%s)", len(kz), describe(kz), len(chart), describe(chart))
	}
	for _, c := range chart {
		k := find(t, kz, "ConfigMap", c.GetName())
		if k.GetLabels()["grafana_dashboard"] != "1" || k.GetAnnotations()["grafana_folder"] != c.GetAnnotations()["grafana_folder"] {
			t.Errorf("%s: labels %v, annotations %v; the chart's %v, %v", k.GetName(), k.GetLabels(), k.GetAnnotations(), c.GetLabels(), c.GetAnnotations())
		}
		kd, _, _ := unstructured.NestedStringMap(k.Object, "data")
		cd, _, _ := unstructured.NestedStringMap(c.Object, "data")
		if len(kd) != 1 || len(cd) != 1 {
			t.Fatalf("%s: %d files, the chart's %d", k.GetName(), len(kd), len(cd))
		}
		for name, body := range cd {
			if strings.TrimSpace(kd[name]) != strings.TrimSpace(body) {
				t.Errorf("%s: %s differs from the chart's", k.GetName(), name)
			}
		}
	}
}

func readRoot(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(rootPath(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustYAML(t *testing.T, v any) string {
	t.Helper()
	b, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
