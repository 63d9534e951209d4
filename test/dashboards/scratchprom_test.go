package dashboards

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/test/support/dashcheck"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// startPrometheus runs Debian's Prometheus on a free loopback port with
// an empty database, scraping itself and the given targets (job
// "blastfleet-engine", honoring their labels) every second, until the
// test ends.
func startPrometheus(t *testing.T, targets ...string) *dashcheck.Client {
	t.Helper()
	testenv.RequireTools(t, "prometheus")
	dir := t.TempDir()
	addr := freeAddr(t)
	cfg := fmt.Sprintf("global: {scrape_interval: 1s}\nscrape_configs:\n- job_name: prometheus\n  static_configs: [{targets: [%q]}]\n", addr)
	if len(targets) > 0 {
		cfg += fmt.Sprintf("- job_name: blastfleet-engine\n  honor_labels: true\n  static_configs: [{targets: [%s]}]\n", `"`+strings.Join(targets, `", "`)+`"`)
	}
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "prometheus.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	cmd := exec.Command("prometheus", "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+addr)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	url := "http://" + addr
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if resp, err := http.Get(url + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(logPath)
			t.Fatalf("Prometheus on %s not ready after 30s:\n%s", addr, b)
		}
	}
	return &dashcheck.Client{URL: url}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// Every panel target and alert expression parses and evaluates in a
// real Prometheus (with no blastfleet data, so they return nothing: the
// stack test below proves they return series). Variables are pinned,
// since an empty database has no values for them.
func TestQueriesAreValidPromQL(t *testing.T) {
	prom := startPrometheus(t)
	ctx := context.Background()
	o := dashcheck.Options{Client: prom, Vars: dashcheck.Vars{"job": operatorJob, "namespace": "default", "campaign": "c"}}
	rep, err := dashcheck.CheckDashboards(ctx, loadDashboards(t), o)
	if err != nil {
		t.Fatal(err)
	}
	rules, err := dashcheck.CheckRules(ctx, loadAlerts(t), o)
	if err != nil {
		t.Fatal(err)
	}
	rep.Add(rules)
	for _, f := range rep.Findings {
		if f.Problem == dashcheck.Invalid {
			t.Errorf("invalid: %s", f)
		}
	}
	// Sanity: the queries reached Prometheus and came back empty.
	if rep.Queries < 60 || rep.Count(dashcheck.Empty) < 50 {
		t.Errorf("%d queries, %d empty: the check did not evaluate what it should", rep.Queries, rep.Count(dashcheck.Empty))
	}
	t.Logf("%d queries valid", rep.Queries)
}
