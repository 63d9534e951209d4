// Package dashboards proves blastfleet's Grafana dashboards and alerts:
// they follow the conventions (test/support/dashcheck's lint), the copies for
// kustomize and plain Prometheus equal their sources, promtool accepts the
// rules and their unit tests pass, every query parses in a real
// Prometheus, and, on the local stack of "blastfleet dev up" after a real
// campaign, every panel and every alert signal returns series (make
// verify-dashboards; it runs in make test too, and is skipped with
// -short).
package dashboards

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// Paths, relative to the repository root.
const (
	chartDashboards     = "charts/blastfleet/dashboards"
	kustomizeDashboards = "config/grafana"
	alertsSource        = "charts/blastfleet/files/alerts.yaml"
	alertsPlain         = "config/prometheus/alerts.yaml"
	alertsUnitTests     = "config/prometheus/alerts_test.yaml"
	scrapeConfig        = "config/prometheus/prometheus-scrape.yaml"
	metricContract      = "docs/observability.md"
)

// operatorJob is the operator's scrape job in alerts.yaml, the plain
// scrape config and the local stack.
const operatorJob = "blastfleet-operator"

func TestMain(m *testing.M) { testenv.Main(m) }

func rootPath(t testing.TB, rel string) string {
	t.Helper()
	r, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(r, rel)
}

func readFile(t testing.TB, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(rootPath(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
