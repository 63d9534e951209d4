package runrecord

import (
	"math"
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

// TaskBounds spans 1 ms to about 3 hours, four buckets per decade.
func TaskBounds() []float64 {
	var b []float64
	for e := -3.0; e <= 4; e += 0.25 {
		b = append(b, math.Round(math.Pow(10, e)*1e6)/1e6)
	}
	return b
}

// NewHistogram is an empty histogram over bounds.
func NewHistogram(bounds []float64) *Histogram {
	return &Histogram{Bounds: bounds, Counts: make([]int64, len(bounds)+1)}
}

// Observe counts v.
func (h *Histogram) Observe(v float64) {
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
