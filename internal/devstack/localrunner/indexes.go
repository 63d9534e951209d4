package localrunner

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// formatIndexes writes a set of completion indexes as the Job API does:
// ascending, runs of consecutive indexes as intervals ("0-2,4").
func formatIndexes(set map[int]bool) string {
	idx := make([]int, 0, len(set))
	for i, ok := range set {
		if ok {
			idx = append(idx, i)
		}
	}
	slices.Sort(idx)
	var parts []string
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && idx[j+1] == idx[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(idx[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", idx[i], idx[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// parseIndexes reads formatIndexes' form, keeping indexes below limit.
func parseIndexes(s string, limit int) (map[int]bool, error) {
	set := map[int]bool{}
	if s == "" {
		return set, nil
	}
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("index list %q: %w", s, err)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil {
				return nil, fmt.Errorf("index list %q: %w", s, err)
			}
		}
		for i := a; i <= b && i < limit; i++ {
			set[i] = true
		}
	}
	return set, nil
}
