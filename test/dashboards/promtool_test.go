package dashboards

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// promtool runs Debian's promtool (package prometheus) and returns its
// output; a failure fails the test.
func promtool(t *testing.T, dir string, args ...string) string {
	t.Helper()
	testenv.RequireTools(t, "promtool")
	cmd := exec.Command("promtool", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func TestPromtoolCheckRules(t *testing.T) {
	out := promtool(t, rootPath(t, "."), "check", "rules", alertsPlain)
	if want := len(loadAlerts(t)); !strings.Contains(out, "SUCCESS") || !strings.Contains(out, strconv.Itoa(want)+" rules found") {
		t.Errorf("promtool check rules: want SUCCESS and %d rules:\n%s", want, out)
	}
}

// promtool test rules runs config/prometheus/alerts_test.yaml, which must
// show every alert both firing and silent.
func TestPromtoolTestRules(t *testing.T) {
	var unit struct {
		RuleFiles []string `json:"rule_files"`
		Tests     []struct {
			AlertRuleTest []struct {
				Alertname string `json:"alertname"`
				ExpAlerts []any  `json:"exp_alerts"`
			} `json:"alert_rule_test"`
		} `json:"tests"`
	}
	if err := yaml.Unmarshal(readFile(t, alertsUnitTests), &unit); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(unit.RuleFiles, []string{filepath.Base(alertsPlain)}) {
		t.Errorf("%s tests %v, want %s", alertsUnitTests, unit.RuleFiles, filepath.Base(alertsPlain))
	}
	fires, silent := map[string]bool{}, map[string]bool{}
	for _, tc := range unit.Tests {
		for _, a := range tc.AlertRuleTest {
			if len(a.ExpAlerts) > 0 {
				fires[a.Alertname] = true
			} else {
				silent[a.Alertname] = true
			}
		}
	}
	for _, r := range loadAlerts(t) {
		if !fires[r.Alert] || !silent[r.Alert] {
			t.Errorf("%s does not show %s both firing (%v) and silent (%v)", alertsUnitTests, r.Alert, fires[r.Alert], silent[r.Alert])
		}
	}
	out := promtool(t, filepath.Dir(rootPath(t, alertsUnitTests)), "test", "rules", filepath.Base(alertsUnitTests))
	if !strings.Contains(out, "SUCCESS") {
		t.Errorf("promtool test rules:\n%s", out)
	}
}

// The plain Prometheus scrape config. Debian's Prometheus is built
// without Kubernetes service discovery, so promtool checks a copy whose
// kubernetes_sd_configs are replaced by a static target; the discovery
// blocks themselves are checked against the fields Prometheus documents.
func TestScrapeConfig(t *testing.T) {
	var cfg map[string]any
	if err := yaml.Unmarshal(readFile(t, scrapeConfig), &cfg); err != nil {
		t.Fatal(err)
	}
	if rf, _ := cfg["rule_files"].([]any); len(rf) != 1 || rf[0] != filepath.Base(alertsPlain) {
		t.Errorf("rule_files %v, want [%s]", cfg["rule_files"], filepath.Base(alertsPlain))
	}
	roles := map[string]string{} // job: its discovery role
	for _, sc := range cfg["scrape_configs"].([]any) {
		sc := sc.(map[string]any)
		if sc["honor_labels"] != true {
			t.Errorf("job %s: honor_labels is not true (the metrics' namespace label must win)", sc["job_name"])
		}
		sds, _ := sc["kubernetes_sd_configs"].([]any)
		if len(sds) == 0 {
			t.Errorf("job %s has no kubernetes_sd_configs", sc["job_name"])
		}
		for _, sd := range sds {
			checkKubernetesSD(t, sc["job_name"].(string), sd.(map[string]any))
			roles[sc["job_name"].(string)], _ = sd.(map[string]any)["role"].(string)
		}
		delete(sc, "kubernetes_sd_configs")
		// promtool wants the token file to exist: in the pod it does.
		if auth, ok := sc["authorization"].(map[string]any); ok && auth["credentials_file"] != nil {
			auth["credentials_file"] = "token"
		}
		sc["static_configs"] = []any{map[string]any{"targets": []any{"127.0.0.1:9090"}}}
	}
	// The job names are the ones alerts.yaml selects and the local stack uses.
	if want := map[string]string{operatorJob: "endpoints", "blastfleet-engine": "pod"}; !maps.Equal(roles, want) {
		t.Errorf("jobs and their discovery roles %v, want %v", roles, want)
	}
	if !strings.Contains(string(readFile(t, scrapeConfig)), `regex: "9090"`) {
		t.Error("the engine job does not keep the engine's metrics port 9090 (podMonitor.engineMetricsPort)")
	}

	dir := t.TempDir()
	b, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"prometheus.yml": b, filepath.Base(alertsPlain): readFile(t, alertsPlain), "token": []byte("t")} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := promtool(t, dir, "check", "config", "prometheus.yml")
	if !strings.Contains(out, "SUCCESS") {
		t.Errorf("promtool check config:\n%s", out)
	}
}

// checkKubernetesSD checks a kubernetes_sd_configs entry against
// Prometheus's documented fields and roles.
func checkKubernetesSD(t *testing.T, job string, sd map[string]any) {
	t.Helper()
	known := []string{"api_server", "role", "kubeconfig_file", "namespaces", "selectors", "attach_metadata",
		"basic_auth", "authorization", "oauth2", "proxy_url", "follow_redirects", "enable_http2", "tls_config"}
	for k := range sd {
		if !slices.Contains(known, k) {
			t.Errorf("job %s: kubernetes_sd_configs has unknown field %s", job, k)
		}
	}
	if role, _ := sd["role"].(string); !slices.Contains([]string{"node", "service", "pod", "endpoints", "endpointslice", "ingress"}, role) {
		t.Errorf("job %s: kubernetes_sd_configs role %v", job, sd["role"])
	}
	if ns, ok := sd["namespaces"].(map[string]any); ok {
		for k := range ns {
			if k != "names" && k != "own_namespace" {
				t.Errorf("job %s: namespaces has unknown field %s", job, k)
			}
		}
	}
}
