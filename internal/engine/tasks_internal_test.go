package engine

import "testing"

func TestTaskStats(t *testing.T) {
	s := newTaskStats()
	for i := range 100 {
		s.add(TaskRecord{Rank: i, Seconds: float64(i%50) + 0.5})
	}
	if got := s.hist.Count(); got != 100 {
		t.Fatalf("histogram counts %d, want 100", got)
	}
	if len(s.slowest) != slowestKept {
		t.Fatalf("kept %d slowest, want %d", len(s.slowest), slowestKept)
	}
	for i := 1; i < len(s.slowest); i++ {
		if s.slowest[i].Seconds > s.slowest[i-1].Seconds {
			t.Fatalf("slowest not descending at %d: %+v", i, s.slowest)
		}
	}
	if s.slowest[0].Seconds != 49.5 || s.slowest[len(s.slowest)-1].Seconds < 37.5 {
		t.Errorf("slowest span %g..%g, want 49.5..>=37.5", s.slowest[0].Seconds, s.slowest[len(s.slowest)-1].Seconds)
	}
	h := newHistogram([]float64{1, 10})
	for _, v := range []float64{0.5, 1, 2, 10, 11} {
		h.observe(v)
	}
	if want := []int64{2, 2, 1}; h.Counts[0] != want[0] || h.Counts[1] != want[1] || h.Counts[2] != want[2] {
		t.Errorf("counts %v, want %v (upper bounds inclusive)", h.Counts, want)
	}
}
