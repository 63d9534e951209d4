package dashcheck

import (
	"slices"
	"strings"
	"testing"
)

func TestLintAcceptsTheTestDashboard(t *testing.T) {
	d, err := ParseDashboard([]byte(testDashboard))
	if err != nil {
		t.Fatal(err)
	}
	d.File = "campaign.json"
	if p := Lint(d); len(p) != 0 {
		t.Errorf("Lint: %q", p)
	}
}

func TestLintFindsBreaches(t *testing.T) {
	d, err := ParseDashboard([]byte(`{
	  "uid": "x", "title": "X", "schemaVersion": 27,
	  "templating": {"list": [{"name": "namespace", "type": "query", "datasource": "Prometheus", "query": "label_values(up, namespace)"}]},
	  "panels": [
	    {"id": 1, "type": "stat", "title": "A", "datasource": "Prometheus", "targets": [{"refId": "A", "expr": "up{namespace=\"$ns\"}"}]},
	    {"id": 1, "type": "stat", "title": "B", "datasource": {"uid": "${datasource}"},
	     "targets": [{"refId": "A", "expr": "up"}, {"refId": "A", "expr": "", "datasource": {"uid": "other"}}]},
	    {"id": 3, "type": "timeseries", "title": "C", "datasource": {"uid": "${datasource}"}}
	  ]}`))
	if err != nil {
		t.Fatal(err)
	}
	d.File = "x.json"
	got := Lint(d)
	for _, want := range []string{
		"schemaVersion 27",
		`variable $namespace queries data source "Prometheus"`,
		`no "datasource" variable`,
		`panel "A" uses data source "Prometheus"`,
		`panel "A" query A uses $ns, which is not a variable`,
		`panels "A" and "B" share id 1`,
		`panel "B" has a query without expr or refId`,
		`panel "B" has two queries A`,
		`panel "B" query A uses data source "other"`,
		`panel "C" has no query`,
	} {
		if !slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, want) }) {
			t.Errorf("Lint did not report %q; it said:\n%s", want, strings.Join(got, "\n"))
		}
	}
	dup := *d
	dup.File = "y.json"
	if all := LintAll([]*Dashboard{d, &dup}); !slices.ContainsFunc(all, func(s string) bool { return strings.Contains(s, `share uid "x"`) }) {
		t.Errorf("LintAll did not report the shared uid: %q", all)
	}
}

func TestParseRules(t *testing.T) {
	rules, err := ParseRules([]byte("groups:\n- name: a\n  rules:\n  - alert: X\n    expr: up == 0\n    for: 5m\n    labels: {severity: warning}\n    annotations: {summary: s}\n- name: b\n  rules:\n  - record: r\n    expr: sum(up)\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) != 2 || rules[0].Name() != "X" || rules[0].For != "5m" || rules[0].Labels["severity"] != "warning" ||
		rules[1].Name() != "r" || rules[1].Group != "b" {
		t.Errorf("rules %+v", rules)
	}
	for _, bad := range []string{"groups: []", "groups:\n- name: a\n  rules:\n  - alert: X\n    exprr: up\n", "{"} {
		if _, err := ParseRules([]byte(bad)); err == nil {
			t.Errorf("ParseRules accepted %q", bad)
		}
	}
}
