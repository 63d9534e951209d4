package dashcheck

import (
	"regexp"
	"strings"
)

// Signals returns the parts of an alert expression that must return
// series while the system is healthy, so that the alert can fire at all:
// the expression is split at its top-level comparisons (==, !=, >, <, >=,
// <=, with or without bool) and set operators (and, or, unless); matching
// modifiers (on, ignoring, group_left, group_right) are dropped; number
// literals are dropped; an operand wholly in parentheses is split in turn;
// absent(x) and absent_over_time(x) stand for x. What remains are the
// measurements the alert compares, e.g. for
//
//	max by (ns) (x) > 0 and on (ns) (delta(y[5m]) == 0)
//
// the signals are "max by (ns) (x)" and "delta(y[5m])". Comparisons nested
// inside a function or aggregation are not split: such an operand is a
// signal as it is.
func Signals(expr string) []string {
	var out []string
	for _, op := range splitTop(expr) {
		op = stripModifiers(strings.TrimSpace(op))
		switch {
		case op == "" || numberLiteral.MatchString(op):
		case wrapped(op, 0):
			inner := op[1 : len(op)-1]
			if parts := Signals(inner); len(parts) == 1 && parts[0] == strings.TrimSpace(inner) {
				out = append(out, op)
			} else {
				out = append(out, parts...)
			}
		default:
			if arg, ok := absentArg(op); ok {
				out = append(out, Signals(arg)...)
			} else {
				out = append(out, op)
			}
		}
	}
	return out
}

var numberLiteral = regexp.MustCompile(`^[+-]?((\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?|0[xX][0-9a-fA-F]+|(?i:inf|nan))$`)

// absentFunc matches the opening of absent( and absent_over_time(.
var absentFunc = regexp.MustCompile(`^absent(_over_time)?\s*\(`)

// absentArg returns x when op is absent(x) or absent_over_time(x).
func absentArg(op string) (string, bool) {
	m := absentFunc.FindStringIndex(op)
	if m == nil {
		return "", false
	}
	open := m[1] - 1
	if !wrapped(op, open) {
		return "", false
	}
	return op[open+1 : len(op)-1], true
}

// wrapped reports whether the parenthesis at s[open] closes at the end
// of s.
func wrapped(s string, open int) bool {
	if open >= len(s) || s[open] != '(' {
		return false
	}
	return closing(s, open) == len(s)-1
}

// closing returns the index of the bracket closing the one at s[open],
// or -1; string literals are skipped.
func closing(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\'', '`':
			i = skipString(s, i)
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// skipString returns the index of the quote closing the string literal
// opened at s[i] (the last index when it is not closed).
func skipString(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch {
		case s[j] == '\\' && q != '`':
			j++
		case s[j] == q:
			return j
		}
	}
	return len(s) - 1
}

// splitTop splits expr at its top-level comparison and set operators.
func splitTop(expr string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(expr); i++ {
		c := expr[i]
		switch c {
		case '"', '\'', '`':
			i = skipString(expr, i)
			continue
		case '(', '[', '{':
			depth++
			continue
		case ')', ']', '}':
			depth--
			continue
		}
		if depth != 0 {
			continue
		}
		if n := operatorAt(expr, i); n > 0 {
			parts = append(parts, expr[start:i])
			i += n - 1
			start = i + 1
		}
	}
	return append(parts, expr[start:])
}

// operatorAt returns the length of the comparison or set operator
// starting at expr[i], or 0.
func operatorAt(expr string, i int) int {
	rest := expr[i:]
	for _, op := range []string{"==", "!=", ">=", "<="} {
		if strings.HasPrefix(rest, op) {
			return 2
		}
	}
	if rest[0] == '>' || rest[0] == '<' {
		return 1
	}
	if i > 0 && isIdent(expr[i-1]) {
		return 0
	}
	for _, kw := range []string{"and", "or", "unless"} {
		if len(rest) >= len(kw) && strings.EqualFold(rest[:len(kw)], kw) && (len(rest) == len(kw) || !isIdent(rest[len(kw)])) {
			return len(kw)
		}
	}
	return 0
}

func isIdent(c byte) bool {
	return c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// modifier matches a vector matching keyword at the start of an operand.
var modifier = regexp.MustCompile(`^(?i)(bool|on|ignoring|group_left|group_right)\b\s*`)

// stripModifiers drops "bool", "on (...)", "ignoring (...)",
// "group_left (...)" and "group_right (...)" from the start of an operand.
func stripModifiers(op string) string {
	for {
		m := modifier.FindStringSubmatch(op)
		if m == nil {
			return op
		}
		kw := strings.ToLower(m[1])
		op = op[len(m[0]):]
		if kw == "bool" || !strings.HasPrefix(op, "(") {
			continue
		}
		// on and ignoring always take a label list; group_left and
		// group_right take one when a parenthesis follows.
		if end := closing(op, 0); end > 0 {
			op = strings.TrimSpace(op[end+1:])
		}
	}
}
