package report

import (
	"fmt"
	"math"
	"slices"

	"github.com/blastfleet/blastfleet/internal/storage/runrecord"
)

// Histogram chart geometry, in SVG pixels.
const (
	hgWidth  = 900.0
	hgLeft   = 50.0
	hgPlotW  = hgWidth - hgLeft - 20
	hgTop    = 10.0
	hgPlotH  = 160.0
	hgHeight = hgTop + hgPlotH + 34
	hgMaxBar = 48.0
	// hgLabelAll: up to this many buckets, each bound gets a label.
	hgLabelAll = 12
)

// histView is the runs' task times summed into one histogram and drawn
// as bars over log-spaced buckets.
type histView struct {
	Count      int64
	Mean, Max  float64
	P50, P90   string // upper bounds of the buckets holding them
	Bars       []rect
	Labels     []tick
	YTicks     []tick // X is the y coordinate here
	Mismatched int    // runs whose buckets differ from the first's, left out
}

// Geometry for the template.
func (h *histView) Width() float64   { return hgWidth }
func (h *histView) Height() float64  { return hgHeight }
func (h *histView) Left() float64    { return hgLeft }
func (h *histView) Right() float64   { return hgLeft + hgPlotW }
func (h *histView) Base() float64    { return hgTop + hgPlotH }
func (h *histView) LabelY() float64  { return hgTop + hgPlotH + 18 }
func (h *histView) TickEnd() float64 { return hgTop + hgPlotH + 5 }
func (h *histView) Empty() bool      { return h == nil || h.Count == 0 }

// sumHistograms adds the runs' task histograms that share the first
// one's bounds; the others are counted as mismatched.
func sumHistograms(runs []runrecord.RunRecord) (*runrecord.Histogram, int) {
	var sum *runrecord.Histogram
	mismatched := 0
	for _, r := range runs {
		if r.Summary == nil || r.Summary.TaskSeconds == nil {
			continue
		}
		h := r.Summary.TaskSeconds
		if len(h.Counts) != len(h.Bounds)+1 {
			mismatched++
			continue
		}
		if sum == nil {
			sum = &runrecord.Histogram{Bounds: slices.Clone(h.Bounds), Counts: make([]int64, len(h.Counts))}
		}
		if !slices.Equal(sum.Bounds, h.Bounds) {
			mismatched++
			continue
		}
		for i, c := range h.Counts {
			sum.Counts[i] += c
		}
		sum.Sum += h.Sum
	}
	return sum, mismatched
}

func buildHistogram(runs []runrecord.RunRecord, slowest []slowTask) *histView {
	h, mismatched := sumHistograms(runs)
	v := &histView{Mismatched: mismatched}
	if h == nil {
		return v
	}
	v.Count = h.Count()
	if v.Count == 0 {
		return v
	}
	v.Mean = h.Sum / float64(v.Count)
	if len(slowest) > 0 {
		v.Max = slowest[0].Seconds
	}
	v.P50, v.P90 = quantileBound(h, 0.5), quantileBound(h, 0.9)
	// Show the buckets from the first to the last that holds anything.
	lo, hi := -1, -1
	var peak int64
	for i, c := range h.Counts {
		if c > 0 {
			if lo < 0 {
				lo = i
			}
			hi = i
			peak = max(peak, c)
		}
	}
	// Bars no wider than hgMaxBar, so a few buckets do not sprawl.
	n := hi - lo + 1
	w := min(hgMaxBar, hgPlotW/float64(n))
	for i := lo; i <= hi; i++ {
		x := hgLeft + float64(i-lo)*w
		c := h.Counts[i]
		bh := float64(c) / float64(peak) * hgPlotH
		v.Bars = append(v.Bars, rect{X: x + 1, Y: hgTop + hgPlotH - bh, W: max(1, w-2), H: bh, Class: "bar",
			Title: fmt.Sprintf("%s: %d tasks", bucketName(h.Bounds, i), c)})
		// Bounds are log-spaced, four to a decade: label each decade, or
		// every bucket when there are few.
		if i < len(h.Bounds) && (n <= hgLabelAll || isDecade(h.Bounds[i])) {
			v.Labels = append(v.Labels, tick{X: x + w, Label: seconds(h.Bounds[i])})
		}
	}
	for _, f := range []float64{0, 0.5, 1} {
		v.YTicks = append(v.YTicks, tick{X: hgTop + hgPlotH - f*hgPlotH, Label: fmt.Sprint(int64(math.Round(f * float64(peak))))})
	}
	return v
}

// bucketName is bucket i's range, as Histogram counts it.
func bucketName(bounds []float64, i int) string {
	switch {
	case len(bounds) == 0:
		return "all"
	case i == 0:
		return "≤ " + seconds(bounds[0])
	case i >= len(bounds):
		return "> " + seconds(bounds[len(bounds)-1])
	}
	return fmt.Sprintf("%s – %s", seconds(bounds[i-1]), seconds(bounds[i]))
}

func isDecade(b float64) bool {
	if b <= 0 {
		return false
	}
	l := math.Log10(b)
	return math.Abs(l-math.Round(l)) < 1e-6
}

// quantileBound is the upper bound of the bucket holding quantile q.
func quantileBound(h *runrecord.Histogram, q float64) string {
	total := h.Count()
	want := int64(math.Ceil(q * float64(total)))
	var seen int64
	for i, c := range h.Counts {
		seen += c
		if seen >= want && c > 0 {
			if i >= len(h.Bounds) {
				return "> " + seconds(h.Bounds[len(h.Bounds)-1])
			}
			return "≤ " + seconds(h.Bounds[i])
		}
	}
	return "—"
}
