package engine

import (
	"testing"
	"time"
)

func TestTimelineMergesAndBounds(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	tl := newTimeline(t0)
	tl.add("compute", at(0), at(1))
	tl.add("compute", at(1.0001), at(2)) // within the gap: one interval
	tl.add("write", at(2), at(2.5))
	tl.add("compute", at(3), at(4)) // a second compute interval
	tl.add("sync", at(5), at(5))    // empty: dropped
	want := []Interval{{Phase: "compute", Start: 0, End: 2}, {Phase: "write", Start: 2, End: 2.5}, {Phase: "compute", Start: 3, End: 4}}
	if len(tl.intervals) != len(want) {
		t.Fatalf("intervals %+v, want %+v", tl.intervals, want)
	}
	for i, iv := range tl.intervals {
		if iv.Phase != want[i].Phase || iv.Start < want[i].Start-1e-6 || iv.Start > want[i].Start+1e-6 ||
			iv.End < want[i].End-1e-6 || iv.End > want[i].End+1e-6 {
			t.Errorf("interval %d: %+v, want %+v", i, iv, want[i])
		}
	}

	// A long run stays bounded and keeps its extent.
	tl = newTimeline(t0)
	phases := []string{"compute", "gather", "write"}
	for i := 0; i < 5*maxIntervals; i++ {
		s := float64(i) * 0.01
		tl.add(phases[i%3], at(s), at(s+0.004))
	}
	if n := len(tl.intervals); n > maxIntervals || n < 10 {
		t.Fatalf("%d intervals after %d adds, want a bounded, non-trivial timeline", n, 5*maxIntervals)
	}
	var last float64
	for _, iv := range tl.intervals {
		last = max(last, iv.End)
	}
	if want := float64(5*maxIntervals-1)*0.01 + 0.004; last < want-1e-6 {
		t.Errorf("timeline ends at %g, want %g", last, want)
	}
}
