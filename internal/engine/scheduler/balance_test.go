package scheduler

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestGroupTimes(t *testing.T) {
	b, err := GroupTimes([]Span{{0, 2}, {2, 3}, {3, 3}}, []float64{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(b.Times, []float64{3, 3, 0}) || b.Max != 3 || b.Mean != 2 || b.Min != 0 || b.Imbalance() != 1.5 {
		t.Fatalf("got %+v, imbalance %v", b, b.Imbalance())
	}
	for _, tt := range []struct {
		spans []Span
		costs []float64
		want  string
	}{
		{nil, []float64{1}, "no groups"},
		{[]Span{{0, 2}, {1, 3}}, []float64{1, 1, 1}, "query 1 is in groups 0 and 1"},
		{[]Span{{0, 4}}, []float64{1, 1, 1}, "group 0 holds queries [0, 4), there are 3"},
		{[]Span{{2, 1}}, []float64{1, 1, 1}, "group 0 holds queries [2, 1)"},
		{[]Span{{0, 1}}, []float64{math.NaN()}, "query 0 costs NaN"},
		{[]Span{{0, 1}}, []float64{-1}, "query 0 costs -1"},
	} {
		if _, err := GroupTimes(tt.spans, tt.costs); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("spans %v costs %v: got %v, want %q", tt.spans, tt.costs, err, tt.want)
		}
	}
}

func TestDynamicTimes(t *testing.T) {
	// The long first query keeps group 0 busy while group 1 takes the rest.
	b, err := DynamicTimes([]float64{5, 1, 1, 1, 1, 1}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(b.Times, []float64{5, 5}) {
		t.Fatalf("times %v, want [5 5]", b.Times)
	}
	if _, err := DynamicTimes([]float64{1}, 0); err == nil {
		t.Fatal("0 groups accepted")
	}
}

// On costs that query lengths do not predict (the paper's point), the
// static splits can leave one group with far more than the mean, while
// dynamic scheduling stays within one query of it (Graham's bound).
func TestStaticAndDynamicBalance(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	const n, groups = 512, 8
	lengths := make([]int, n)
	costs := make([]float64, n)
	var heaviest float64
	for i := range lengths {
		lengths[i] = 100 + r.IntN(20000)
		// Cost grows with length, times a heavy-tailed factor.
		costs[i] = float64(lengths[i]) * math.Exp(r.NormFloat64())
		heaviest = max(heaviest, costs[i])
	}
	ls, _ := LengthSplit(lengths, groups)
	ws, _ := WeightSplit(lengths, groups, DefaultWeightFactor)
	byLength, err := GroupTimes(ls, costs)
	if err != nil {
		t.Fatal(err)
	}
	byWeight, err := GroupTimes(ws, costs)
	if err != nil {
		t.Fatal(err)
	}
	dynamic, err := DynamicTimes(costs, groups)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("max/mean: LengthSplit %.2f, WeightSplit %.2f, dynamic %.2f", byLength.Imbalance(), byWeight.Imbalance(), dynamic.Imbalance())
	for name, b := range map[string]Balance{"LengthSplit": byLength, "WeightSplit": byWeight, "dynamic": dynamic} {
		if math.Abs(b.Mean-sum(costs)/groups) > 1e-6*b.Mean {
			t.Errorf("%s: mean %v, want total/groups %v", name, b.Mean, sum(costs)/groups)
		}
	}
	if dynamic.Max > dynamic.Mean+heaviest {
		t.Errorf("dynamic: max %v above mean %v + the costliest query %v", dynamic.Max, dynamic.Mean, heaviest)
	}
	if dynamic.Max >= byLength.Max || dynamic.Max >= byWeight.Max {
		t.Errorf("dynamic max %v, static %v and %v: want dynamic lower", dynamic.Max, byLength.Max, byWeight.Max)
	}
}

func sum(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s
}
