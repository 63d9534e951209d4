package dashboards

import (
	"bytes"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/test/support/dashcheck"
)

// The dashboards the issue asks for, by file.
var wantDashboards = []string{"campaign.json", "fleet-overview.json", "operator.json"}

func loadDashboards(t testing.TB) []*dashcheck.Dashboard {
	t.Helper()
	ds, err := dashcheck.LoadDashboards(rootPath(t, chartDashboards))
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func loadAlerts(t testing.TB) []dashcheck.Rule {
	t.Helper()
	rules, err := dashcheck.LoadRules(rootPath(t, alertsPlain))
	if err != nil {
		t.Fatal(err)
	}
	return rules
}

func TestDashboardsFollowTheConventions(t *testing.T) {
	ds := loadDashboards(t)
	var files []string
	for _, d := range ds {
		files = append(files, d.File)
	}
	if !slices.Equal(files, wantDashboards) {
		t.Fatalf("%s holds %v, want %v", chartDashboards, files, wantDashboards)
	}
	for _, p := range dashcheck.LintAll(ds) {
		t.Error(p)
	}
	for _, d := range ds {
		var names []string
		for _, v := range d.Variables {
			names = append(names, v.Name)
		}
		want := []string{"datasource", "job", "namespace", "campaign"}
		if d.File == "operator.json" {
			want = want[:2] // the operator's health is not per campaign
		}
		if !slices.Equal(names, want) {
			t.Errorf("%s: variables %v, want %v", d.File, names, want)
		}
	}
}

// Every metric a dashboard or alert queries is in the metric contract of
// docs/observability.md, or one of controller-runtime's and the Go
// client's own (or Prometheus's up).
func TestQueriesUseContractMetrics(t *testing.T) {
	contract := map[string]bool{"up": true}
	for _, m := range regexp.MustCompile("`(blastfleet_[a-z_]+)`\\s*\\|\\s*(gauge|counter|histogram)").FindAllStringSubmatch(string(readFile(t, metricContract)), -1) {
		contract[m[1]] = true
		if m[2] == "histogram" {
			for _, s := range []string{"_bucket", "_sum", "_count"} {
				contract[m[1]+s] = true
			}
		}
	}
	if len(contract) < 20 {
		t.Fatalf("found only %d metrics in %s's tables", len(contract), metricContract)
	}
	runtime := regexp.MustCompile(`^(controller_runtime_|workqueue_|process_|go_|rest_client_)`)
	check := func(where, expr string) {
		for _, m := range dashcheck.MetricNames(expr) {
			if !contract[m] && !runtime.MatchString(m) {
				t.Errorf("%s queries %s, which is not in the metric contract (%s)", where, m, metricContract)
			}
		}
	}
	for _, d := range loadDashboards(t) {
		for _, p := range d.Panels {
			for _, tg := range p.Targets {
				check(d.File+" panel "+p.Title, tg.Expr)
			}
		}
		for _, v := range d.Variables {
			if sel, _, ok := dashcheck.ParseLabelValues(v.Query); ok {
				check(d.File+" variable $"+v.Name, sel)
			}
		}
	}
	for _, r := range loadAlerts(t) {
		check("alert "+r.Name(), r.Expr)
	}
}

// config/grafana holds byte-identical copies of the chart's dashboards,
// each generated into a ConfigMap by its kustomization.
func TestKustomizeDashboardsAreCopies(t *testing.T) {
	kust := string(readFile(t, kustomizeDashboards+"/kustomization.yaml"))
	copies, _ := filepath.Glob(rootPath(t, kustomizeDashboards+"/*.json"))
	if len(copies) != len(wantDashboards) {
		t.Errorf("%s holds %d JSON files, %s %d", kustomizeDashboards, len(copies), chartDashboards, len(wantDashboards))
	}
	for _, f := range wantDashboards {
		src := readFile(t, chartDashboards+"/"+f)
		cp := readFile(t, kustomizeDashboards+"/"+f)
		if !bytes.Equal(src, cp) {
			t.Errorf("%s/%s differs from %s/%s: copy it (cp %s/*.json %s/)", kustomizeDashboards, f, chartDashboards, f, chartDashboards, kustomizeDashboards)
		}
		name := "blastfleet-dashboard-" + strings.TrimSuffix(f, ".json")
		if !strings.Contains(kust, "- name: "+name+"\n  files:\n  - "+f+"\n") {
			t.Errorf("%s/kustomization.yaml does not generate ConfigMap %s from %s", kustomizeDashboards, name, f)
		}
	}
}

// config/prometheus/alerts.yaml is a byte-identical copy of the chart's
// files/alerts.yaml, the alerts' one source.
func TestPlainAlertsAreTheChartsAlerts(t *testing.T) {
	if !bytes.Equal(readFile(t, alertsSource), readFile(t, alertsPlain)) {
		t.Errorf("%s differs from %s, the alerts' source: cp %s %s", alertsPlain, alertsSource, alertsSource, alertsPlain)
	}
}

// The alerts the issue asks for exist, with a severity and a summary, and
// the operator's job selected in every expression.
func TestAlertsCoverTheIssue(t *testing.T) {
	rules := loadAlerts(t)
	var names []string
	for _, r := range rules {
		names = append(names, r.Name())
		if r.Alert == "" {
			t.Errorf("recording rule %s: the rules file holds alerts only", r.Record)
		}
		if r.Labels["severity"] == "" {
			t.Errorf("alert %s has no severity", r.Alert)
		}
		if !strings.Contains(r.Expr, `job="`+operatorJob+`"`) {
			t.Errorf("alert %s does not select job=%q (the chart rewrites that selector to its own job): %s", r.Alert, operatorJob, r.Expr)
		}
	}
	for _, want := range []string{"BlastfleetCampaignStalled", "BlastfleetChunkFailureRateHigh", "BlastfleetPartitionRestarts", "BlastfleetPoisonQueries"} {
		if !slices.Contains(names, want) {
			t.Errorf("no alert %s (alerts: %v)", want, names)
		}
	}
}
