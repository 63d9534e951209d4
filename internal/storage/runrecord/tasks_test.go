package runrecord

import "testing"

func TestHistogram(t *testing.T) {
	h := NewHistogram([]float64{1, 10})
	for _, v := range []float64{0.5, 1, 2, 10, 11} {
		h.Observe(v)
	}
	if want := []int64{2, 2, 1}; h.Counts[0] != want[0] || h.Counts[1] != want[1] || h.Counts[2] != want[2] {
		t.Errorf("counts %v, want %v (upper bounds inclusive)", h.Counts, want)
	}
	if h.Count() != 5 || h.Sum != 24.5 {
		t.Errorf("count %d sum %g, want 5 and 24.5", h.Count(), h.Sum)
	}
}
