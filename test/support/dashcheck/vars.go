package dashcheck

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Vars are values for Grafana's template variables, by name without "$".
type Vars map[string]string

// Builtins are Grafana's global variables a Prometheus query may use,
// with the values a dashboard would get over a window of length rng
// ending at "to", with the given rate interval and scrape interval:
// $__rate_interval, $__interval(_ms), $__range(_s, _ms), $__from, $__to.
func Builtins(to time.Time, rng, rateInterval, interval time.Duration) Vars {
	return Vars{
		"__rate_interval": promDuration(rateInterval),
		"__interval":      promDuration(interval),
		"__interval_ms":   strconv.FormatInt(interval.Milliseconds(), 10),
		"__range":         promDuration(rng),
		"__range_s":       strconv.FormatInt(int64(rng.Seconds()), 10),
		"__range_ms":      strconv.FormatInt(rng.Milliseconds(), 10),
		"__from":          strconv.FormatInt(to.Add(-rng).UnixMilli(), 10),
		"__to":            strconv.FormatInt(to.UnixMilli(), 10),
	}
}

// promDuration writes d as a PromQL duration in whole seconds ("90s").
func promDuration(d time.Duration) string {
	return fmt.Sprintf("%ds", max(int64(d.Seconds()), 1))
}

// varRef matches Grafana's three variable syntaxes: $name, ${name} or
// ${name:format}, and the deprecated [[name]] or [[name:format]].
var varRef = regexp.MustCompile(`\$(\w+)|\$\{(\w+)(?::([^}]+))?\}|\[\[(\w+)(?::(\w+))?\]\]`)

// Substitute replaces every variable reference in expr with its value in
// vars. A ":regex" format escapes regular expression metacharacters; other
// formats (raw, pipe, csv, ...) use the value as it is, which is what they
// do to a single value. A reference to a variable vars lacks is an error
// naming every such variable.
func Substitute(expr string, vars Vars) (string, error) {
	var missing []string
	out := varRef.ReplaceAllStringFunc(expr, func(ref string) string {
		m := varRef.FindStringSubmatch(ref)
		name, format := m[1], ""
		switch {
		case m[2] != "":
			name, format = m[2], m[3]
		case m[4] != "":
			name, format = m[4], m[5]
		}
		if isDigits(name) {
			return ref // $1 in label_replace: a capture group, not a variable
		}
		v, ok := vars[name]
		if !ok {
			if !slices.Contains(missing, "$"+name) {
				missing = append(missing, "$"+name)
			}
			return ref
		}
		if format == "regex" {
			return regexp.QuoteMeta(v)
		}
		return v
	})
	if len(missing) > 0 {
		return out, fmt.Errorf("unknown variable %s", strings.Join(missing, ", "))
	}
	return out, nil
}

// References lists the variables expr refers to, in order, once each.
func References(expr string) []string {
	var out []string
	for _, m := range varRef.FindAllStringSubmatch(expr, -1) {
		name := m[1] + m[2] + m[4]
		if !isDigits(name) && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// labelValuesQuery matches label_values(label) and
// label_values(selector, label).
var labelValuesQuery = regexp.MustCompile(`^\s*label_values\(\s*(?:(.*\S)\s*,\s*)?(\w+)\s*\)\s*$`)

// ParseLabelValues splits a label_values() variable query into its
// series selector (empty when absent) and label name.
func ParseLabelValues(q string) (selector, label string, ok bool) {
	m := labelValuesQuery.FindStringSubmatch(q)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
