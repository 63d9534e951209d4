package dashcheck

import (
	"fmt"
	"strings"
)

// Problem is what is wrong with a query.
type Problem string

const (
	// Invalid: Prometheus rejected the query, or a variable it uses is
	// unknown.
	Invalid Problem = "invalid"
	// Empty: the query returned no series.
	Empty Problem = "empty"
	// BadVariable: a template variable's own query is unusable or
	// returned no values.
	BadVariable Problem = "bad variable"
)

// Finding is one query that failed the check.
type Finding struct {
	Problem Problem
	// Where: "dashboard <title> (<file>), panel <title> [refId]" or
	// "alert <name> (<file>, group <group>)".
	Where string
	// Expr is the query as sent to Prometheus (variables substituted).
	Expr string
	// Detail is Prometheus's error, or for an alert the signal that
	// returned no series.
	Detail string
	// Metrics are the metric names Expr refers to, to tell which
	// exporter failed to provide data.
	Metrics []string
}

func (f Finding) String() string {
	s := fmt.Sprintf("%s: %s: %s", f.Where, f.Problem, oneLine(f.Expr))
	if f.Detail != "" {
		s += " (" + oneLine(f.Detail) + ")"
	}
	return s
}

// Report is the outcome of a check.
type Report struct {
	// Queries counts the queries evaluated (targets, alert expressions
	// and signals, variable queries).
	Queries  int
	Findings []Finding
}

// OK reports whether nothing was found.
func (r *Report) OK() bool { return len(r.Findings) == 0 }

// Add merges another report into r.
func (r *Report) Add(o Report) {
	r.Queries += o.Queries
	r.Findings = append(r.Findings, o.Findings...)
}

// Count returns how many findings are of problem p.
func (r *Report) Count(p Problem) int {
	n := 0
	for _, f := range r.Findings {
		if f.Problem == p {
			n++
		}
	}
	return n
}

func (r *Report) String() string {
	if r.OK() {
		return fmt.Sprintf("%d queries, all valid and non-empty", r.Queries)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d problems (%d invalid, %d empty, %d bad variables) after %d queries:\n",
		len(r.Findings), r.Count(Invalid), r.Count(Empty), r.Count(BadVariable), r.Queries)
	for _, f := range r.Findings {
		b.WriteString("  " + f.String() + "\n")
	}
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
