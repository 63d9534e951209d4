package devstack

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/devstack/localrunner"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// TestPrometheusConfig checks the scrape config with promtool, the
// Prometheus package's own checker, and the engine targets file it reads.
func TestPrometheusConfig(t *testing.T) {
	testenv.RequireTools(t, "promtool")
	p := paths{t.TempDir()}
	if err := os.MkdirAll(p.prometheusDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	ports := Ports{Etcd: 2379, MinIO: 9000, Prometheus: 9090, OperatorMetrics: 8080, EngineMetricsBase: 21000}
	if err := os.WriteFile(p.prometheusConfig(), []byte(prometheusConfig(p, ports)), 0o644); err != nil {
		t.Fatal(err)
	}
	w := &targetsWriter{path: p.engineTargets()}
	procs := []localrunner.Process{
		{Kind: "MPIJob", Namespace: "default", Name: "c-p0-r0", MetricsPortBase: 21000, MetricsPorts: 2},
		{Kind: "Job", Namespace: "default", Name: "c-plan"},
		{Kind: "MPIJob", Namespace: "default", Name: "c-p1-r0", MetricsPortBase: 21002, MetricsPorts: 2},
	}
	if err := w.update(engineTargets(procs)); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("promtool", "check", "config", p.prometheusConfig()).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool check config: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "SUCCESS") {
		t.Errorf("promtool: %s", out)
	}
	var groups []targetGroup
	b, _ := os.ReadFile(p.engineTargets())
	if err := json.Unmarshal(b, &groups); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range groups {
		got = append(got, g.Targets[0]+" "+g.Labels["mpijob"]+"/"+g.Labels["rank"])
	}
	want := "127.0.0.1:21000 c-p0-r0/0,127.0.0.1:21001 c-p0-r0/1,127.0.0.1:21002 c-p1-r0/0,127.0.0.1:21003 c-p1-r0/1"
	if strings.Join(got, ",") != want {
		t.Errorf("engine targets %v, want %s", got, want)
	}
	// Unchanged processes do not rewrite the file (Prometheus rereads on change).
	st1, _ := os.Stat(p.engineTargets())
	if err := os.Remove(p.engineTargets()); err != nil {
		t.Fatal(err)
	}
	if err := w.update(engineTargets(procs)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p.engineTargets()); err == nil {
		t.Errorf("the targets were written again although nothing changed (was %v)", st1.ModTime())
	}
	if !strings.Contains(prometheusConfig(p, ports), filepath.Base(p.engineTargets())) {
		t.Error("the config does not read the engine targets file")
	}
}
