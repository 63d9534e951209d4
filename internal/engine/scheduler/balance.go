package scheduler

import (
	"fmt"
	"math"
)

// Balance is how evenly work fell on the groups: the Blue Gene/P paper's
// Fig. 4 reports the maximum, mean and minimum group time, and the run
// takes the maximum.
type Balance struct {
	Times          []float64 // per group
	Max, Mean, Min float64
}

// Imbalance is Max/Mean: 1 is perfect; the paper measured 2.3 for both
// static splits and 1.8 for dynamic scheduling.
func (b Balance) Imbalance() float64 {
	if b.Mean == 0 {
		return 1
	}
	return b.Max / b.Mean
}

// GroupTimes sums the per-query costs of each group of a static split
// (spans may be empty; each query must be in at most one span).
func GroupTimes(spans []Span, costs []float64) (Balance, error) {
	if len(spans) == 0 {
		return Balance{}, fmt.Errorf("GroupTimes: no groups")
	}
	if err := checkCosts(costs); err != nil {
		return Balance{}, fmt.Errorf("GroupTimes: %w", err)
	}
	times := make([]float64, len(spans))
	owner := make([]int, len(costs))
	for g, s := range spans {
		if s.First < 0 || s.End < s.First || s.End > len(costs) {
			return Balance{}, fmt.Errorf("GroupTimes: group %d holds queries [%d, %d), there are %d", g, s.First, s.End, len(costs))
		}
		for q := s.First; q < s.End; q++ {
			if owner[q] != 0 {
				return Balance{}, fmt.Errorf("GroupTimes: query %d is in groups %d and %d", q, owner[q]-1, g)
			}
			owner[q] = g + 1
			times[g] += costs[q]
		}
	}
	return summarize(times), nil
}

// DynamicTimes is dynamic scheduling reduced to its essence for
// comparison: queries in order, each to the group that becomes free first
// (the lowest-numbered on ties), which is what Algorithm 1 does with one
// shard group and one-query blocks.
func DynamicTimes(costs []float64, groups int) (Balance, error) {
	if groups < 1 {
		return Balance{}, fmt.Errorf("DynamicTimes: %d groups, want at least 1", groups)
	}
	if err := checkCosts(costs); err != nil {
		return Balance{}, fmt.Errorf("DynamicTimes: %w", err)
	}
	times := make([]float64, groups)
	for _, c := range costs {
		g := 0
		for i, t := range times {
			if t < times[g] {
				g = i
			}
		}
		times[g] += c
	}
	return summarize(times), nil
}

func checkCosts(costs []float64) error {
	for q, c := range costs {
		if !(c >= 0) || math.IsInf(c, 0) {
			return fmt.Errorf("query %d costs %v, want a finite value >= 0", q, c)
		}
	}
	return nil
}

func summarize(times []float64) Balance {
	b := Balance{Times: times, Max: times[0], Min: times[0]}
	var sum float64
	for _, t := range times {
		b.Max, b.Min = max(b.Max, t), min(b.Min, t)
		sum += t
	}
	b.Mean = sum / float64(len(times))
	return b
}
