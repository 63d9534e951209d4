package dashcheck

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

var evalTime = time.UnixMilli(1_700_000_000_500)

func TestCheckDashboard(t *testing.T) {
	f, c := newFakeProm(t)
	f.labels["namespace|blastfleet_campaign_queries"] = []string{"default", "team-a"}
	f.labels[`campaign|blastfleet_campaign_queries{namespace="team-a"}`] = []string{"c1", "c2"}
	f.series[`max(blastfleet_campaign_queries{namespace="team-a", campaign="c2", state="done"})`] = 1
	f.invalid[`sum(rate(blastfleet_engine_queries_total{campaign="c2"}[90s]))`] = `parse error: unexpected "}"`
	// The hidden B query returns nothing: empty.
	d, err := ParseDashboard([]byte(testDashboard))
	if err != nil {
		t.Fatal(err)
	}
	d.File = "campaign.json"
	rep, err := CheckDashboard(context.Background(), d, Options{Client: c, Time: evalTime, RateInterval: 90 * time.Second,
		Vars: Vars{"namespace": "team-a", "campaign": "c2"}})
	if err != nil {
		t.Fatal(err)
	}
	wantQueries := []string{
		`max(blastfleet_campaign_queries{namespace="team-a", campaign="c2", state="done"})`,
		`sum(rate(blastfleet_engine_queries_total{campaign="c2"}[90s]))`,
		`histogram_quantile(0.99, sum by (le) (rate(blastfleet_engine_blast_seconds_bucket[90s])))`,
	}
	if !slices.Equal(f.queries, wantQueries) {
		t.Errorf("queries sent:\n%q\nwant\n%q", f.queries, wantQueries)
	}
	for _, tm := range f.times {
		if tm != "1700000000.500" {
			t.Errorf("evaluated at %q, want the given time", tm)
		}
	}
	if want := []string{"blastfleet_campaign_queries", `blastfleet_campaign_queries{namespace="team-a"}`}; !slices.Equal(f.matches, want) {
		t.Errorf("variable queries matched %q, want %q (the second with $namespace substituted)", f.matches, want)
	}
	if rep.Queries != 5 || len(rep.Findings) != 2 {
		t.Fatalf("report: %s", rep.String())
	}
	inv, emp := rep.Findings[0], rep.Findings[1]
	if inv.Problem != Invalid || inv.Where != `dashboard "Test campaign" (campaign.json), panel "Queries/s" [A]` ||
		!strings.Contains(inv.Detail, "parse error") || !slices.Equal(inv.Metrics, []string{"blastfleet_engine_queries_total"}) {
		t.Errorf("invalid finding: %+v", inv)
	}
	if emp.Problem != Empty || !strings.HasSuffix(emp.Where, `panel "Queries/s" [B]`) || !strings.Contains(emp.Expr, "histogram_quantile(0.99,") {
		t.Errorf("empty finding: %+v", emp)
	}
	if s := rep.String(); !strings.Contains(s, "2 problems (1 invalid, 1 empty, 0 bad variables) after 5 queries") {
		t.Errorf("report text:\n%s", s)
	}
}

func TestCheckDashboardVariables(t *testing.T) {
	f, c := newFakeProm(t)
	f.labels["namespace|blastfleet_campaign_queries"] = []string{"default"}
	f.series[`max(blastfleet_campaign_queries{namespace="default", campaign="c9", state="done"})`] = 1
	d, _ := ParseDashboard([]byte(testDashboard))
	d.File = "campaign.json"

	// Unpinned, $namespace takes the first value; $campaign has none, so
	// every panel using it is reported, not evaluated (the hidden B query
	// does not use it).
	rep, err := CheckDashboard(context.Background(), d, Options{Client: c})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Count(BadVariable) != 3 || rep.Count(Empty) != 1 || len(f.queries) != 1 {
		t.Fatalf("report %s; queries %q", rep.String(), f.queries)
	}
	if f := rep.Findings[0]; !strings.HasSuffix(f.Where, "variable $campaign") || f.Detail != "no values" ||
		f.Expr != `label_values(blastfleet_campaign_queries{namespace="default"}, campaign)` {
		t.Errorf("variable finding %+v", f)
	}
	if f := rep.Findings[1]; !strings.Contains(f.Detail, "not evaluated: $campaign has no value") {
		t.Errorf("dependent panel finding %+v", f)
	}

	// A pinned value must be one the variable's query finds; the panels
	// are evaluated with it all the same.
	f.labels[`campaign|blastfleet_campaign_queries{namespace="default"}`] = []string{"c1"}
	rep, err = CheckDashboard(context.Background(), d, Options{Client: c, Vars: Vars{"campaign": "c9"}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Count(BadVariable) != 1 || !strings.Contains(rep.Findings[0].Detail, `the pinned value "c9" is not among its values ["c1"]`) {
		t.Errorf("pinned value absent: %s", rep.String())
	}
	if rep.Count(Empty) != 2 || !slices.Contains(f.queries, `max(blastfleet_campaign_queries{namespace="default", campaign="c9", state="done"})`) {
		t.Errorf("panels with the pinned value: %s; queries %q", rep.String(), f.queries)
	}
}

func TestCheckRules(t *testing.T) {
	f, c := newFakeProm(t)
	rules, err := ParseRules([]byte(`groups:
- name: g
  rules:
  - alert: Quiet
    expr: max by (campaign) (failed) > 0
    for: 5m
  - alert: Down
    expr: absent(up{job="op"} == 1)
  - alert: NoSignal
    expr: sum(rate(missing_total[5m])) / sum(rate(other_total[5m])) > 0.1 and present >= 3
  - alert: Broken
    expr: rate(x[5m) > 0
  - record: job:up:sum
    expr: sum(up)
`))
	if err != nil {
		t.Fatal(err)
	}
	for i := range rules {
		rules[i].File = "alerts.yaml"
	}
	f.series[`max by (campaign) (failed)`] = 2 // silent (0 > 0 is false) but measurable
	f.series[`up{job="op"}`] = 1
	f.series[`present`] = 1
	f.invalid[`rate(x[5m) > 0`] = "parse error: unclosed left bracket"
	rep, err := CheckRules(context.Background(), rules, Options{Client: c})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, fd := range rep.Findings {
		got = append(got, string(fd.Problem)+" "+fd.Where+": "+fd.Expr)
	}
	want := []string{
		`empty alert NoSignal (alerts.yaml, group g): sum(rate(missing_total[5m])) / sum(rate(other_total[5m]))`,
		`invalid alert Broken (alerts.yaml, group g): rate(x[5m) > 0`,
		`empty recording rule job:up:sum (alerts.yaml, group g): sum(up)`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Every expression is evaluated whole first, then its signals.
	for _, q := range []string{`absent(up{job="op"} == 1)`, `up{job="op"}`, `max by (campaign) (failed) > 0`, `max by (campaign) (failed)`} {
		if !slices.Contains(f.queries, q) {
			t.Errorf("%s was not evaluated; queries: %q", q, f.queries)
		}
	}
	if rep.Queries != len(f.queries) {
		t.Errorf("report counts %d queries, the server saw %d", rep.Queries, len(f.queries))
	}
}

func TestQueryResultLabels(t *testing.T) {
	f, c := newFakeProm(t)
	f.series["up"] = 2
	r, err := c.Query(context.Background(), "up", time.Time{})
	if err != nil || r.Type != "vector" || r.Series != 2 || len(r.Labels) != 2 || r.Labels[1]["i"] != "1" {
		t.Errorf("Query = %+v, %v", r, err)
	}
	if f.times[0] != "" {
		t.Errorf("a zero time was sent as %q; Prometheus should use its now", f.times[0])
	}
}

func TestUnreachablePrometheus(t *testing.T) {
	c := &Client{URL: "http://127.0.0.1:1", HTTP: nil}
	rules := []Rule{{Alert: "A", Expr: "up == 0"}}
	if _, err := CheckRules(context.Background(), rules, Options{Client: c}); err == nil || IsQueryError(err) {
		t.Errorf("an unreachable server gave %v, want a transport error", err)
	}
	d, _ := ParseDashboard([]byte(testDashboard))
	if _, err := CheckDashboard(context.Background(), d, Options{Client: c}); err == nil {
		t.Error("an unreachable server gave no error")
	}
}
