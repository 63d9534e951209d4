package engine

import (
	"slices"
	"time"
)

// maxIntervals bounds one rank's timeline (about 40 bytes each in JSON):
// past it, intervals are coalesced more coarsely rather than dropped.
const maxIntervals = 20000

// timeline records a rank's phase intervals. Neighbouring intervals of one
// phase closer than the gap are merged, and the gap doubles whenever the
// timeline would outgrow maxIntervals, so a week-long run keeps its shape
// at a coarser grain.
type timeline struct {
	start     time.Time
	intervals []Interval
	gap       float64 // seconds
}

func newTimeline(start time.Time) *timeline {
	return &timeline{start: start, gap: 0.001}
}

func (t *timeline) add(phase string, from, to time.Time) {
	s, e := from.Sub(t.start).Seconds(), to.Sub(t.start).Seconds()
	if e <= s {
		return
	}
	// Intervals arrive nearly in order; merge with the latest of the phase.
	for i := len(t.intervals) - 1; i >= 0 && i >= len(t.intervals)-4; i-- {
		iv := &t.intervals[i]
		if iv.Phase == phase && s <= iv.End+t.gap && e >= iv.Start-t.gap {
			iv.Start, iv.End = min(iv.Start, s), max(iv.End, e)
			return
		}
	}
	t.intervals = append(t.intervals, Interval{Phase: phase, Start: s, End: e})
	if len(t.intervals) > maxIntervals {
		t.coarsen()
	}
}

// coarsen re-draws the timeline in bins a quarter of the bound wide each,
// every bin showing the phase that held most of its time, and merges
// neighbouring bins of one phase: the shape survives, fine detail does
// not (the summary's per-phase totals stay exact).
func (t *timeline) coarsen() {
	end := 0.0
	for _, iv := range t.intervals {
		end = max(end, iv.End)
	}
	n := maxIntervals / 4
	w := end / float64(n)
	if w <= 0 {
		return
	}
	// bins[b*len(Phases)+p]: phase p's time in bin b.
	bins := make([]float64, n*len(Phases))
	for _, iv := range t.intervals {
		p := slices.Index(Phases, iv.Phase)
		if p < 0 {
			p = len(Phases) - 1
		}
		for b := int(iv.Start / w); b < n && float64(b)*w < iv.End; b++ {
			bins[b*len(Phases)+p] += min(iv.End, float64(b+1)*w) - max(iv.Start, float64(b)*w)
		}
	}
	out := t.intervals[:0]
	for b := range n {
		held := bins[b*len(Phases) : (b+1)*len(Phases)]
		best := -1
		for p, v := range held {
			if v > 0 && (best < 0 || v > held[best]) {
				best = p
			}
		}
		if best < 0 {
			continue
		}
		s, e := float64(b)*w, float64(b+1)*w
		if k := len(out) - 1; k >= 0 && out[k].Phase == Phases[best] && out[k].End >= s-1e-9 {
			out[k].End = e
			continue
		}
		out = append(out, Interval{Phase: Phases[best], Start: s, End: e})
	}
	t.intervals = out
	t.gap = max(t.gap, w)
}
