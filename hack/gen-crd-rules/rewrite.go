package main

import (
	"fmt"
	"slices"
	"strings"
)

// rule is a group of generated marker lines: those of the doc comment of
// the declaration found by anchor (lines containing each string, in
// order) that match, replaced by lines at the first one's place.
type rule struct {
	name   string
	anchor []string
	match  func(marker string) bool
	lines  []string // without indentation or "// "
}

// generate rewrites src's generated markers, each rule's once.
func generate(src []byte, rules []rule) ([]byte, error) {
	lines := strings.Split(string(src), "\n")
	for _, r := range rules {
		at, err := find(lines, r.anchor)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.name, err)
		}
		var matched []int
		for i := at - 1; i >= 0 && strings.HasPrefix(strings.TrimSpace(lines[i]), "//"); i-- {
			if r.match(strings.TrimPrefix(strings.TrimSpace(lines[i]), "// ")) {
				matched = append([]int{i}, matched...)
			}
		}
		if len(matched) == 0 {
			return nil, fmt.Errorf("%s: no marker to rewrite above %q", r.name, strings.TrimSpace(lines[at]))
		}
		indent := lines[matched[0]][:strings.Index(lines[matched[0]], "//")]
		var gen []string
		for _, l := range r.lines {
			gen = append(gen, indent+"// "+l)
		}
		var out []string
		for i, l := range lines {
			switch {
			case i == matched[0]:
				out = append(out, gen...)
			case !slices.Contains(matched, i):
				out = append(out, l)
			}
		}
		lines = out
	}
	return []byte(strings.Join(lines, "\n")), nil
}

// find is the index of the line holding anchor's last string, after
// lines holding the others in order; each must be found once.
func find(lines []string, anchor []string) (int, error) {
	from := 0
	for _, a := range anchor {
		at := -1
		for i := from; i < len(lines); i++ {
			if strings.Contains(lines[i], a) {
				if at >= 0 && len(anchor) == 1 {
					return 0, fmt.Errorf("%q is found twice", a)
				}
				if at < 0 {
					at = i
				}
			}
		}
		if at < 0 {
			return 0, fmt.Errorf("%q is not found", a)
		}
		from = at + 1
	}
	return from - 1, nil
}
