package dashcheck

import (
	"slices"
	"testing"
)

func TestSignals(t *testing.T) {
	for _, c := range []struct {
		expr string
		want []string
	}{
		{`max by (namespace, campaign) (blastfleet_campaign_queries{state="failed"}) > 0`,
			[]string{`max by (namespace, campaign) (blastfleet_campaign_queries{state="failed"})`}},
		{`absent(up{job="blastfleet-operator"} == 1)`, []string{`up{job="blastfleet-operator"}`}},
		{`absent_over_time(up{job="x"}[5m])`, []string{`up{job="x"}[5m]`}},
		{"a / (b + c) > 0.25\nand\nd >= 3", []string{"a / (b + c)", "d"}},
		{`x > bool 1`, []string{"x"}},
		{`(x > 0) and on (namespace, campaign) (y < on (namespace) group_left (z) w) unless ignoring (a) v == -1e3`,
			[]string{"x", "y", "w", "v"}},
		{`a and on(ns) group_left b`, []string{"a", "b"}},
		{`sum(rate(x[5m])) / sum(rate(y[5m]))`, []string{`sum(rate(x[5m])) / sum(rate(y[5m]))`}},
		{`(sum(x))`, []string{`(sum(x))`}},
		{`count(x > 0)`, []string{`count(x > 0)`}},
		{`x{a=~"b>c|d and e", b!="f<g"} != 0`, []string{`x{a=~"b>c|d and e", b!="f<g"}`}},
		{`vector_or_not and android_metric or unlessx`, []string{"vector_or_not", "android_metric", "unlessx"}},
		{`x AND y OR z`, []string{"x", "y", "z"}},
		{`x > Inf`, []string{"x"}},
	} {
		if got := Signals(c.expr); !slices.Equal(got, c.want) {
			t.Errorf("Signals(%s)\n got %q\nwant %q", c.expr, got, c.want)
		}
	}
}

func TestMetricNames(t *testing.T) {
	for _, c := range []struct {
		expr string
		want []string
	}{
		{`sum by (namespace, campaign) (rate(blastfleet_engine_queries_total{campaign="$campaign"}[5m]))`, []string{"blastfleet_engine_queries_total"}},
		{`histogram_quantile(0.99, sum by (le, controller) (rate(controller_runtime_reconcile_time_seconds_bucket[1m])))`,
			[]string{"controller_runtime_reconcile_time_seconds_bucket"}},
		{`a / on (ns) group_left (x) b > 0.25 and absent(up{job="j"} == 1) offset 5m`, []string{"a", "b", "up"}},
		{`max without (instance) (x:recorded) * 1e3 - time()`, []string{"x:recorded"}},
	} {
		if got := MetricNames(c.expr); !slices.Equal(got, c.want) {
			t.Errorf("MetricNames(%s) = %q, want %q", c.expr, got, c.want)
		}
	}
}
