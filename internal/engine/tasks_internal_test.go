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
}
