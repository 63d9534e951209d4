package dashboards

import (
	"context"
	"fmt"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/blastfleet/blastfleet/test/support/dashcheck"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// engineLabels are the labels docs/observability.md says every engine
// series carries, with the values a fake rank gives them.
var engineLabels = prometheus.Labels{"namespace": "default", "campaign": "c", "partition": "p0", "rank": "0", "role": "master"}

// contractMetric is one row of the engine's table in the metric contract.
type contractMetric struct {
	name, kind string
	labels     []string            // extra labels
	values     map[string][]string // listed values of an extra label
}

// engineContract reads the engine's metrics from docs/observability.md.
func engineContract(t *testing.T) []contractMetric {
	t.Helper()
	doc := string(readFile(t, metricContract))
	i := strings.Index(doc, "### Engine")
	if i < 0 {
		t.Fatalf("%s has no \"### Engine\" section", metricContract)
	}
	row := regexp.MustCompile("(?m)^\\| `(blastfleet_engine_[a-z_]+)` \\| (counter|gauge|histogram) \\|(.*)\\|\\s*$")
	label := regexp.MustCompile("`([a-z_]+)`(?: \\(([a-z, ]+)\\))?")
	var out []contractMetric
	for _, m := range row.FindAllStringSubmatch(doc[i:], -1) {
		cm := contractMetric{name: m[1], kind: m[2], values: map[string][]string{}}
		for _, l := range label.FindAllStringSubmatch(m[3], -1) {
			cm.labels = append(cm.labels, l[1])
			if l[2] != "" {
				cm.values[l[1]] = strings.Split(strings.ReplaceAll(l[2], " ", ""), ",")
			}
		}
		out = append(out, cm)
	}
	if len(out) < 10 {
		t.Fatalf("found %d engine metrics in %s", len(out), metricContract)
	}
	return out
}

// fakeRank serves the contract's engine metrics, every label value
// listed in the contract present, and moves them every 100 ms.
func fakeRank(t *testing.T) string {
	t.Helper()
	reg := prometheus.NewRegistry()
	var bump []func()
	for _, cm := range engineContract(t) {
		// Every combination of listed values (one label has a list at
		// most today); unlisted labels get "x".
		combos := [][]string{nil}
		for _, l := range cm.labels {
			vals := cm.values[l]
			if len(vals) == 0 {
				vals = []string{"x"}
			}
			var next [][]string
			for _, c := range combos {
				for _, v := range vals {
					next = append(next, append(slices.Clone(c), v))
				}
			}
			combos = next
		}
		switch cm.kind {
		case "counter":
			v := prometheus.NewCounterVec(prometheus.CounterOpts{Name: cm.name, Help: "fake", ConstLabels: engineLabels}, cm.labels)
			reg.MustRegister(v)
			for _, c := range combos {
				ctr := v.WithLabelValues(c...)
				bump = append(bump, func() { ctr.Add(0.1) })
			}
		case "histogram":
			v := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: cm.name, Help: "fake", ConstLabels: engineLabels}, cm.labels)
			reg.MustRegister(v)
			for _, c := range combos {
				h := v.WithLabelValues(c...)
				bump = append(bump, func() { h.Observe(0.3) })
			}
		default:
			v := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: cm.name, Help: "fake", ConstLabels: engineLabels}, cm.labels)
			reg.MustRegister(v)
			for _, c := range combos {
				g := v.WithLabelValues(c...)
				bump = append(bump, func() { g.Inc() })
			}
		}
	}
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	t.Cleanup(srv.Close)
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	go func() {
		for tick := time.NewTicker(100 * time.Millisecond); ; {
			select {
			case <-stop:
				tick.Stop()
				return
			case <-tick.C:
				for _, b := range bump {
					b()
				}
			}
		}
	}()
	return strings.TrimPrefix(srv.URL, "http://")
}

// Every panel query over engine series returns series from a rank that
// exports exactly the metric contract of docs/observability.md (names,
// types, labels, listed label values): the dashboards ask for nothing the
// contract does not promise. The stack test proves the same against the
// real engine.
func TestEnginePanelsMatchTheContract(t *testing.T) {
	prom := startPrometheus(t, fakeRank(t))
	ctx := context.Background()
	// Three scrapes, one second apart, so that rates have two samples.
	testenv.Eventually(t, "Prometheus to scrape the fake rank three times", 30*time.Second, 500*time.Millisecond, func() (bool, string) {
		r, err := prom.Query(ctx, `min(count_over_time(blastfleet_engine_tasks_total[1m])) >= 3`, time.Time{})
		return err == nil && r.Series > 0, fmt.Sprintf("error %v", err)
	})
	o := dashcheck.Options{Client: prom, RateInterval: 30 * time.Second,
		Vars: dashcheck.Vars{"job": operatorJob, "namespace": engineLabels["namespace"], "campaign": engineLabels["campaign"]}}
	rep, err := dashcheck.CheckDashboards(ctx, loadDashboards(t), o)
	if err != nil {
		t.Fatal(err)
	}
	engineQueries := 0
	for _, d := range loadDashboards(t) {
		for _, p := range d.Panels {
			for _, tg := range p.Targets {
				if usesOnlyEngine(tg.Expr) {
					engineQueries++
				}
			}
		}
	}
	for _, f := range rep.Findings {
		if f.Problem != dashcheck.BadVariable && usesOnlyEngine(f.Expr) {
			t.Errorf("%s", f)
		}
	}
	if engineQueries < 20 {
		t.Errorf("only %d panel queries over engine series", engineQueries)
	}
	t.Logf("%d panel queries over engine series checked against the contract", engineQueries)
}

func usesOnlyEngine(expr string) bool {
	ms := dashcheck.MetricNames(expr)
	return len(ms) > 0 && !slices.ContainsFunc(ms, func(m string) bool { return !strings.HasPrefix(m, "blastfleet_engine_") })
}
