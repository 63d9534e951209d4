package engine

import (
	"math"
	"slices"
	"sort"
)

// TaskRecord is one finished task, as the report lists the slowest.
type TaskRecord struct {
	Rank       int     `json:"rank"`
	Group      int     `json:"group"`
	Shards     []int   `json:"shards"`
	FirstQuery string  `json:"firstQuery"`
	LastQuery  string  `json:"lastQuery"`
	Queries    int     `json:"queries"`
	Letters    int64   `json:"letters"`
	Seconds    float64 `json:"seconds"` // BLAST's (or the model's) time
	Chunk      string  `json:"chunk,omitempty"`
}

// Histogram counts values by upper bound: Counts[i] holds values in
// (Bounds[i-1], Bounds[i]], and the last count those above every bound.
type Histogram struct {
	Bounds []float64 `json:"bounds"`
	Counts []int64   `json:"counts"`
	Sum    float64   `json:"sum"`
}

// taskBounds spans 1 ms to about 3 hours, four buckets per decade.
func taskBounds() []float64 {
	var b []float64
	for e := -3.0; e <= 4; e += 0.25 {
		b = append(b, math.Round(math.Pow(10, e)*1e6)/1e6)
	}
	return b
}

func newHistogram(bounds []float64) *Histogram {
	return &Histogram{Bounds: bounds, Counts: make([]int64, len(bounds)+1)}
}

func (h *Histogram) observe(v float64) {
	h.Counts[sort.SearchFloat64s(h.Bounds, v)]++
	h.Sum += v
}

// Count is how many values were observed.
func (h *Histogram) Count() int64 {
	var n int64
	for _, c := range h.Counts {
		n += c
	}
	return n
}

// slowestKept is how many of the slowest tasks a summary keeps.
const slowestKept = 25

// taskStats keeps the task-time distribution and the slowest tasks.
type taskStats struct {
	hist    *Histogram
	slowest []TaskRecord // descending by Seconds, at most slowestKept
}

func newTaskStats() *taskStats { return &taskStats{hist: newHistogram(taskBounds())} }

func (s *taskStats) add(r TaskRecord) {
	s.hist.observe(r.Seconds)
	if len(s.slowest) == slowestKept && r.Seconds <= s.slowest[len(s.slowest)-1].Seconds {
		return
	}
	i := sort.Search(len(s.slowest), func(i int) bool { return s.slowest[i].Seconds < r.Seconds })
	s.slowest = slices.Insert(s.slowest, i, r)
	s.slowest = s.slowest[:min(len(s.slowest), slowestKept)]
}
