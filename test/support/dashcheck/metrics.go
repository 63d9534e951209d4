package dashcheck

import (
	"slices"
	"strings"
)

// promqlWords are identifiers that are not metric names.
var promqlWords = []string{"by", "without", "on", "ignoring", "group_left", "group_right", "bool",
	"and", "or", "unless", "offset", "inf", "nan", "atan2",
	// aggregation operators, which may be followed by "by" before "("
	"sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values",
	"bottomk", "topk", "quantile", "limitk", "limit_ratio"}

// labelListWords take a parenthesized list of label names.
var labelListWords = []string{"by", "without", "on", "ignoring", "group_left", "group_right"}

// MetricNames lists the metric names a PromQL expression selects, in
// order, once each: identifiers outside strings, label matchers, ranges
// and label lists that do not call a function.
func MetricNames(expr string) []string {
	var out []string
	skipList := false // the next parenthesis is a label list
	for i := 0; i < len(expr); i++ {
		c := expr[i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			i = skipString(expr, i)
		case c == '{' || c == '[':
			if end := closing(expr, i); end > 0 {
				i = end
			}
		case c == '(' && skipList:
			if end := closing(expr, i); end > 0 {
				i = end
			}
			skipList = false
		case isIdent(c) && (c < '0' || c > '9'):
			j := i
			for j < len(expr) && isIdent(expr[j]) {
				j++
			}
			word := expr[i:j]
			next := strings.TrimLeft(expr[j:], " \t\n")
			lower := strings.ToLower(word)
			switch {
			case slices.Contains(labelListWords, lower):
				skipList = true
			case slices.Contains(promqlWords, lower), strings.HasPrefix(next, "("):
			case !slices.Contains(out, word):
				out = append(out, word)
			}
			i = j - 1
		case c >= '0' && c <= '9':
			for i+1 < len(expr) && (isIdent(expr[i+1]) || expr[i+1] == '.') {
				i++ // a number or duration: 1e3, 5m, 0.25
			}
		}
	}
	return out
}
