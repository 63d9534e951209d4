package scheduler

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestSplitExamples(t *testing.T) {
	tenthLong := []int{1000, 10, 10, 10, 10, 10, 10, 10, 10, 10}
	tests := []struct {
		name  string
		split func() ([]Span, error)
		want  []Span
	}{
		{"equal lengths", func() ([]Span, error) { return LengthSplit([]int{100, 100, 100, 100}, 2) },
			[]Span{{0, 2}, {2, 4}}},
		{"one long query alone", func() ([]Span, error) { return LengthSplit([]int{300, 100, 100, 100}, 2) },
			[]Span{{0, 1}, {1, 4}}},
		// Letters alone: 1000 against 90. With 225 per query: 1225+2×235
		// = 1695 against 7×235 = 1645, the smallest maximum.
		{"length split ignores the query count", func() ([]Span, error) { return LengthSplit(tenthLong, 2) },
			[]Span{{0, 1}, {1, 10}}},
		{"weight split counts queries", func() ([]Span, error) { return WeightSplit(tenthLong, 2, DefaultWeightFactor) },
			[]Span{{0, 3}, {3, 10}}},
		{"weight factor 0 is a length split", func() ([]Span, error) { return WeightSplit(tenthLong, 2, 0) },
			[]Span{{0, 1}, {1, 10}}},
		{"fewer queries than groups", func() ([]Span, error) { return LengthSplit([]int{5, 5}, 4) },
			[]Span{{0, 1}, {1, 2}, {2, 2}, {2, 2}}},
		{"no queries", func() ([]Span, error) { return WeightSplit(nil, 3, 225) },
			[]Span{{0, 0}, {0, 0}, {0, 0}}},
		{"one group", func() ([]Span, error) { return LengthSplit([]int{1, 2, 3}, 1) },
			[]Span{{0, 3}}},
		{"every query its own group", func() ([]Span, error) { return LengthSplit([]int{9, 1, 1}, 3) },
			[]Span{{0, 1}, {1, 2}, {2, 3}}},
		{"zero lengths", func() ([]Span, error) { return LengthSplit([]int{0, 0, 0, 0}, 2) },
			[]Span{{0, 3}, {3, 4}}},
	}
	for _, tt := range tests {
		got, err := tt.split()
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestSplitErrors(t *testing.T) {
	for _, tt := range []struct {
		err  func() error
		want string
	}{
		{func() error { _, err := LengthSplit([]int{1}, 0); return err }, "LengthSplit: 0 groups"},
		{func() error { _, err := LengthSplit([]int{1, -2}, 2); return err }, "query 1 has negative length -2"},
		{func() error { _, err := WeightSplit([]int{1}, 2, -1); return err }, "WeightSplit: weight factor -1"},
	} {
		if err := tt.err(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("got %v, want an error containing %q", err, tt.want)
		}
	}
}

// Random inputs: the split covers every query once, in order, uses every
// group when it can, and its largest group is the smallest any contiguous
// split achieves (checked by brute force), hence within one query of the
// mean.
func TestSplitProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := range 400 {
		n, groups := r.IntN(11), 1+r.IntN(5)
		lengths := make([]int, n)
		for i := range lengths {
			lengths[i] = r.IntN(2000)
			if r.IntN(8) == 0 {
				lengths[i] = 20000 + r.IntN(30000) // a long one
			}
		}
		factor := []int{0, DefaultWeightFactor}[trial%2]
		t.Run(fmt.Sprint(trial), func(t *testing.T) {
			spans, err := WeightSplit(lengths, groups, factor)
			if err != nil {
				t.Fatal(err)
			}
			w := make([]int64, n)
			var total, heaviest int64
			for i, l := range lengths {
				w[i] = int64(l + factor)
				total += w[i]
				heaviest = max(heaviest, w[i])
			}
			if len(spans) != groups {
				t.Fatalf("%d spans for %d groups", len(spans), groups)
			}
			next := 0
			var worst int64
			for g, s := range spans {
				if s.First != next || s.End < s.First {
					t.Fatalf("span %d is %v after query %d: not contiguous", g, s, next)
				}
				if s.Len() == 0 && n >= groups {
					t.Fatalf("span %d empty with %d queries for %d groups: %v", g, n, groups, spans)
				}
				var sum int64
				for _, x := range w[s.First:s.End] {
					sum += x
				}
				worst = max(worst, sum)
				next = s.End
			}
			if next != n {
				t.Fatalf("spans end at %d of %d queries", next, n)
			}
			if n >= groups {
				if best := bestContiguous(w, groups); worst != best {
					t.Fatalf("weights %v into %d: largest group %d, best possible %d (%v)", w, groups, worst, best, spans)
				}
			}
			if limit := (total+int64(groups)-1)/int64(groups) + heaviest; worst > limit {
				t.Fatalf("largest group %d over mean + one query %d", worst, limit)
			}
		})
	}
}

// bestContiguous is the smallest possible largest total of a split of w
// into exactly groups non-empty contiguous parts, by dynamic programming.
func bestContiguous(w []int64, groups int) int64 {
	const inf = int64(1) << 62
	n := len(w)
	prefix := make([]int64, n+1)
	for i, x := range w {
		prefix[i+1] = prefix[i] + x
	}
	// best[g][i]: first i weights in g parts.
	best := make([][]int64, groups+1)
	for g := range best {
		best[g] = make([]int64, n+1)
		for i := range best[g] {
			best[g][i] = inf
		}
	}
	best[0][0] = 0
	for g := 1; g <= groups; g++ {
		for i := g; i <= n; i++ {
			for j := g - 1; j < i; j++ {
				best[g][i] = min(best[g][i], max(best[g-1][j], prefix[i]-prefix[j]))
			}
		}
	}
	return best[groups][n]
}
