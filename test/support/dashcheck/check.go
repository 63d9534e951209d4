package dashcheck

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Options say where and how queries are evaluated.
type Options struct {
	Client *Client
	// Time is when queries are evaluated; zero means now.
	Time time.Time
	// Range ($__range, and the window variables' values are looked up
	// in), RateInterval ($__rate_interval) and Interval ($__interval).
	// Defaults: 1h, 1m, 15s.
	Range, RateInterval, Interval time.Duration
	// Vars pins variables: a dashboard variable with a pinned value
	// takes it (it must be among the values its query finds), and a
	// pinned builtin overrides Builtins.
	Vars Vars
}

func (o Options) at() time.Time {
	if o.Time.IsZero() {
		return time.Now()
	}
	return o.Time
}

// orDefault is d, or def when d is not set.
func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// window is $__range, over which label values are looked up too.
func (o Options) window() time.Duration { return orDefault(o.Range, time.Hour) }

func (o Options) builtins(at time.Time) Vars {
	v := Builtins(at, o.window(), orDefault(o.RateInterval, time.Minute), orDefault(o.Interval, 15*time.Second))
	for k, x := range o.Vars {
		if _, ok := v[k]; ok {
			v[k] = x
		}
	}
	return v
}

// CheckDashboards checks every panel target of every dashboard. The error
// is a failure to reach Prometheus; what Prometheus says about a query is
// in the report.
func CheckDashboards(ctx context.Context, ds []*Dashboard, o Options) (Report, error) {
	var r Report
	for _, d := range ds {
		dr, err := CheckDashboard(ctx, d, o)
		r.Add(dr)
		if err != nil {
			return r, err
		}
	}
	return r, nil
}

// CheckDashboard resolves a dashboard's variables, then evaluates every
// panel target with them.
func CheckDashboard(ctx context.Context, d *Dashboard, o Options) (Report, error) {
	at := o.at()
	var r Report
	vars, unresolved, err := resolveVariables(ctx, d, o, at, &r)
	if err != nil {
		return r, err
	}
	for _, p := range d.Panels {
		for _, t := range p.Targets {
			if strings.TrimSpace(t.Expr) == "" {
				continue
			}
			where := fmt.Sprintf("dashboard %q (%s), panel %q [%s]", d.Title, d.File, p.Title, t.RefID)
			if why, ok := unresolvedRef(t.Expr, unresolved); ok {
				r.Findings = append(r.Findings, newFinding(BadVariable, where, t.Expr, why))
				continue
			}
			expr, err := Substitute(t.Expr, vars)
			if err != nil {
				r.Findings = append(r.Findings, newFinding(Invalid, where, t.Expr, err.Error()))
				continue
			}
			f, err := evaluate(ctx, o.Client, at, where, expr, &r)
			if err != nil {
				return r, err
			}
			if f != nil {
				r.Findings = append(r.Findings, *f)
			}
		}
	}
	return r, nil
}

// evaluate runs one query and returns a finding when it is invalid or
// empty.
func evaluate(ctx context.Context, c *Client, at time.Time, where, expr string, r *Report) (*Finding, error) {
	r.Queries++
	res, err := c.Query(ctx, expr, at)
	var f Finding
	switch {
	case IsQueryError(err):
		f = newFinding(Invalid, where, expr, err.Error())
	case err != nil:
		return nil, fmt.Errorf("querying Prometheus at %s: %w", c.URL, err)
	case res.Series == 0:
		f = newFinding(Empty, where, expr, "no series")
	default:
		return nil, nil
	}
	return &f, nil
}

// newFinding names the metrics expr refers to, to tell which exporter
// failed to provide data.
func newFinding(p Problem, where, expr, detail string) Finding {
	return Finding{Problem: p, Where: where, Expr: expr, Detail: detail, Metrics: MetricNames(expr)}
}

// unresolvedRef says why expr cannot be evaluated when it refers to a
// variable that got no value.
func unresolvedRef(expr string, unresolved map[string]string) (string, bool) {
	for _, name := range References(expr) {
		if why, ok := unresolved[name]; ok {
			return fmt.Sprintf("not evaluated: $%s has no value: %s", name, why), true
		}
	}
	return "", false
}

// resolveVariables gives each template variable a value, in order (a
// variable's query may use the ones before it): label_values() queries
// are asked of Prometheus. Unresolved variables map to the reason.
func resolveVariables(ctx context.Context, d *Dashboard, o Options, at time.Time, r *Report) (Vars, map[string]string, error) {
	vars := o.builtins(at)
	unresolved := map[string]string{}
	for _, v := range d.Variables {
		where := fmt.Sprintf("dashboard %q (%s), variable $%s", d.Title, d.File, v.Name)
		bad := func(expr, detail string) {
			r.Findings = append(r.Findings, newFinding(BadVariable, where, expr, detail))
			unresolved[v.Name] = detail
		}
		pinned, isPinned := o.Vars[v.Name]
		switch v.Type {
		case "datasource":
			vars[v.Name] = "prometheus"
		case "query":
			sel, label, ok := ParseLabelValues(v.Query)
			if !ok {
				bad(v.Query, "dashcheck evaluates label_values(selector, label) variable queries only")
				continue
			}
			if why, ok := unresolvedRef(sel, unresolved); ok {
				bad(sel, why)
				continue
			}
			sel, err := Substitute(sel, vars)
			if err != nil {
				bad(v.Query, err.Error())
				continue
			}
			r.Queries++
			values, err := o.Client.LabelValues(ctx, label, sel, at.Add(-o.window()), at)
			switch {
			case IsQueryError(err):
				bad(v.Query, err.Error())
			case err != nil:
				return nil, nil, fmt.Errorf("querying Prometheus at %s: %w", o.Client.URL, err)
			case isPinned:
				// Panels are evaluated with the pinned value either way.
				vars[v.Name] = pinned
				if !slices.Contains(values, pinned) {
					r.Findings = append(r.Findings, newFinding(BadVariable, where, fmt.Sprintf("label_values(%s, %s)", sel, label),
						fmt.Sprintf("the pinned value %q is not among its values %q", pinned, values)))
				}
			case len(values) == 0:
				bad(fmt.Sprintf("label_values(%s, %s)", sel, label), "no values")
			default:
				vars[v.Name] = values[0]
			}
		default: // custom, interval, constant, textbox: the first option
			switch first, _, _ := strings.Cut(v.Query, ","); {
			case isPinned:
				vars[v.Name] = pinned
			case v.Current != "":
				vars[v.Name] = v.Current
			case strings.TrimSpace(first) != "":
				vars[v.Name] = strings.TrimSpace(first)
			default:
				unresolved[v.Name] = "a " + v.Type + " variable without a value"
			}
		}
	}
	return vars, unresolved, nil
}

// CheckRules evaluates every rule: each expression must be valid; a
// recording rule must return series; an alert's signals (see Signals)
// must each return series.
func CheckRules(ctx context.Context, rules []Rule, o Options) (Report, error) {
	at := o.at()
	var r Report
	for _, rule := range rules {
		kind := "alert"
		if rule.Alert == "" {
			kind = "recording rule"
		}
		where := fmt.Sprintf("%s %s (%s, group %s)", kind, rule.Name(), rule.File, rule.Group)
		f, err := evaluate(ctx, o.Client, at, where, rule.Expr, &r)
		if err != nil {
			return r, err
		}
		// A silent alert returns no series by design: only its signals must.
		if f != nil && (f.Problem == Invalid || rule.Alert == "") {
			r.Findings = append(r.Findings, *f)
			continue
		}
		if rule.Alert == "" {
			continue
		}
		for _, sig := range Signals(rule.Expr) {
			f, err := evaluate(ctx, o.Client, at, where, sig, &r)
			if err != nil {
				return r, err
			}
			if f != nil {
				if f.Problem == Empty {
					f.Detail = "a signal the alert compares returned no series: the alert cannot fire"
				} else {
					f.Detail = "signal: " + f.Detail
				}
				r.Findings = append(r.Findings, *f)
			}
		}
	}
	return r, nil
}
