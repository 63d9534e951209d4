package dashcheck

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSubstitute(t *testing.T) {
	vars := Vars{"namespace": "team-a", "campaign": "c.1", "job": "blastfleet-operator", "__rate_interval": "1m"}
	for _, c := range []struct{ in, want string }{
		{`x{namespace="$namespace", campaign="${campaign}"}`, `x{namespace="team-a", campaign="c.1"}`},
		{`x{campaign=~"${campaign:regex}"}`, `x{campaign=~"c\.1"}`},
		{`x{campaign=~"${campaign:raw}"}`, `x{campaign=~"c.1"}`},
		{`x{job=~"[[job]]"}`, `x{job=~"blastfleet-operator"}`},
		{`rate(x[$__rate_interval])`, `rate(x[1m])`},
		{`label_replace(x, "a", "$1", "b", "(.*)")`, `label_replace(x, "a", "$1", "b", "(.*)")`},
		{`x{job=~"^a$"}`, `x{job=~"^a$"}`},
		{`$namespace$campaign`, `team-ac.1`},
	} {
		got, err := Substitute(c.in, vars)
		if err != nil || got != c.want {
			t.Errorf("Substitute(%s) = %s, %v; want %s", c.in, got, err, c.want)
		}
	}
	_, err := Substitute(`x{a="$nope", b="${other}", c="$nope"}`, vars)
	if err == nil || err.Error() != "unknown variable $nope, $other" {
		t.Errorf("unknown variables: %v", err)
	}
}

func TestReferences(t *testing.T) {
	got := References(`x{a="$ns", b="${campaign:regex}"}[$__rate_interval] / on() y{c="[[ns]]", d="$1"}`)
	if want := []string{"ns", "campaign", "__rate_interval"}; !slices.Equal(got, want) {
		t.Errorf("References = %v, want %v", got, want)
	}
}

func TestBuiltins(t *testing.T) {
	to := time.UnixMilli(1_700_000_000_000)
	b := Builtins(to, 6*time.Hour, 2*time.Minute, 30*time.Second)
	want := Vars{"__rate_interval": "120s", "__interval": "30s", "__interval_ms": "30000", "__range": "21600s",
		"__range_s": "21600", "__range_ms": "21600000", "__from": "1699978400000", "__to": "1700000000000"}
	for k, v := range want {
		if b[k] != v {
			t.Errorf("$%s = %q, want %q", k, b[k], v)
		}
	}
	if len(b) != len(want) {
		t.Errorf("Builtins has %d entries, want %d", len(b), len(want))
	}
}

func TestParseLabelValues(t *testing.T) {
	for _, c := range []struct{ q, sel, label string }{
		{`label_values(blastfleet_campaign_queries, namespace)`, "blastfleet_campaign_queries", "namespace"},
		{` label_values( x{a="$b", c=~"d,e"} , campaign ) `, `x{a="$b", c=~"d,e"}`, "campaign"},
		{`label_values(job)`, "", "job"},
	} {
		sel, label, ok := ParseLabelValues(c.q)
		if !ok || sel != c.sel || label != c.label {
			t.Errorf("ParseLabelValues(%s) = %q, %q, %v", c.q, sel, label, ok)
		}
	}
	for _, q := range []string{"query_result(up)", "metrics(blast.*)", "a,b,c"} {
		if _, _, ok := ParseLabelValues(q); ok {
			t.Errorf("ParseLabelValues(%s) accepted it", q)
		}
	}
	if !strings.Contains(varRef.String(), `\[\[`) {
		t.Error("the [[var]] syntax is not matched")
	}
}
