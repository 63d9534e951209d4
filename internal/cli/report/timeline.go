package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/runrecord"
)

// Timeline geometry, in SVG pixels. Rows are one rank each; the x axis is
// scaled to a fixed width whatever the campaign lasted.
const (
	tlLabelW  = 290.0
	tlPlotX   = 300.0
	tlPlotW   = 880.0
	tlTotX    = tlPlotX + tlPlotW + 24
	tlTotW    = 150.0
	tlWidth   = tlTotX + tlTotW + 10
	tlAxisH   = 28.0
	tlRowH    = 14.0
	tlBarH    = 11.0
	tlRunGap  = 6.0
	tlMinRect = 0.4
)

// Bounds that keep the page's size sane for long and wide campaigns: a
// row never needs more boxes than it has pixels to show them.
const (
	maxTimelineRows  = 300
	maxTimelineRects = 40000
	minRowBudget     = 150
	maxRowBudget     = 2 * int(tlPlotW)
)

// timelineView is the Jumpshot view: one row per (run, rank), one rect
// per interval, coloured by phase.
type timelineView struct {
	Width, Height float64
	Ticks         []tick
	Rows          []timelineRow
	Separators    []float64 // y of the lines between runs
	Span          float64   // seconds shown
	Origin        time.Time
	Rects         int // interval rects drawn
	Coarsened     int // rows drawn at a coarser grain than recorded
	Hidden        int // ranks left out past maxTimelineRows
}

type timelineRow struct {
	Y, TextY    float64
	Label, Full string
	Rects       []rect
	Totals      []rect
}

// rect is one drawn box with its tooltip.
type rect struct {
	X, Y, W, H   float64
	Phase, Class string
	Title        string
}

// Empty says there is nothing to draw.
func (v *timelineView) Empty() bool { return v == nil || v.Rects == 0 }

// Left, PlotX, PlotW, TotX and TotW are the layout, for the template.
func (v *timelineView) Left() float64  { return tlLabelW }
func (v *timelineView) PlotX() float64 { return tlPlotX }
func (v *timelineView) PlotW() float64 { return tlPlotW }
func (v *timelineView) TotX() float64  { return tlTotX }
func (v *timelineView) TotW() float64  { return tlTotW }
func (v *timelineView) AxisY() float64 { return tlAxisH - 4 }

// rankRow is one rank of one run, placed in time.
type rankRow struct {
	run    *runrecord.RunRecord
	rank   *runrecord.RankSummary
	start  time.Time // zero when the record has no clock at all
	offset float64   // seconds from the timeline's origin to the rank's start
}

func buildTimeline(runs []runrecord.RunRecord) *timelineView {
	var rows []rankRow
	var origin time.Time
	for i := range runs {
		s := runs[i].Summary
		if s == nil {
			continue
		}
		for j := range s.Ranks {
			start := rankStart(&runs[i], &s.Ranks[j])
			if !start.IsZero() && (origin.IsZero() || start.Before(origin)) {
				origin = start
			}
			rows = append(rows, rankRow{run: &runs[i], rank: &s.Ranks[j], start: start})
		}
	}
	v := &timelineView{Width: tlWidth, Origin: origin}
	if len(rows) > maxTimelineRows {
		v.Hidden = len(rows) - maxTimelineRows
		rows = rows[:maxTimelineRows]
	}
	for i := range rows {
		if !rows[i].start.IsZero() {
			rows[i].offset = rows[i].start.Sub(origin).Seconds()
		}
		end := rows[i].rank.WallSeconds
		for _, iv := range rows[i].rank.Timeline {
			end = max(end, iv.End)
		}
		v.Span = max(v.Span, rows[i].offset+end)
	}
	if v.Span <= 0 {
		v.Span = 1
	}
	v.Ticks = timeTicks(v.Span, tlPlotX, tlPlotW, 10)
	budget := min(maxRowBudget, max(minRowBudget, maxTimelineRects/max(1, len(rows))))
	y := tlAxisH
	for i, rr := range rows {
		if i > 0 && rows[i-1].run != rr.run {
			v.Separators = append(v.Separators, y+tlRunGap/2)
			y += tlRunGap
		}
		row := v.drawRow(rr, y, budget)
		v.Rects += len(row.Rects)
		v.Rows = append(v.Rows, row)
		y += tlRowH
	}
	v.Height = y + 6
	return v
}

// rankStart is when the rank's clock started; records without it fall
// back to the run's start.
func rankStart(run *runrecord.RunRecord, rk *runrecord.RankSummary) time.Time {
	switch {
	case !rk.Started.IsZero():
		return rk.Started
	case run.Summary != nil && !run.Summary.Started.IsZero():
		return run.Summary.Started
	}
	return run.Started
}

func (v *timelineView) x(s float64) float64 { return tlPlotX + s/v.Span*tlPlotW }

func (v *timelineView) drawRow(rr rankRow, y float64, budget int) timelineRow {
	who := runName(rr.run)
	full := fmt.Sprintf("%s rank %d (%s)", who, rr.rank.Rank, rr.rank.Role)
	short := fmt.Sprintf("%s rank %d (%s)", shorten(who, 30), rr.rank.Rank, rr.rank.Role)
	row := timelineRow{Y: y, TextY: y + tlBarH - 1.5, Label: short, Full: full}
	ivs := rr.rank.Timeline
	if len(ivs) > budget {
		ivs = coarsen(ivs, v.Span/float64(budget))
		v.Coarsened++
	}
	// Longest first, so a span that encloses others (the master writing
	// inside a merge) lies beneath them.
	ivs = slices.Clone(ivs)
	slices.SortStableFunc(ivs, func(a, b runrecord.Interval) int { return cmp.Compare(b.End-b.Start, a.End-a.Start) })
	for _, iv := range ivs {
		x0, x1 := v.x(rr.offset+iv.Start), v.x(rr.offset+iv.End)
		row.Rects = append(row.Rects, rect{X: x0, Y: y, W: max(tlMinRect, x1-x0), H: tlBarH,
			Phase: iv.Phase, Class: phaseClass(iv.Phase),
			Title: fmt.Sprintf("%s: %s from %s to %s (%s)", full, iv.Phase,
				seconds(rr.offset+iv.Start), seconds(rr.offset+iv.End), seconds(iv.End-iv.Start))})
	}
	row.Totals = phaseTotals(rr.rank, y, full)
	return row
}

// phaseTotals is the rank's time by phase as one stacked bar.
func phaseTotals(rk *runrecord.RankSummary, y float64, who string) []rect {
	var sum float64
	for _, p := range runrecord.Phases {
		sum += rk.Phases[p]
	}
	if sum <= 0 {
		return nil
	}
	var out []rect
	x := tlTotX
	for _, p := range runrecord.Phases {
		d := rk.Phases[p]
		if d <= 0 {
			continue
		}
		w := d / sum * tlTotW
		out = append(out, rect{X: x, Y: y, W: w, H: tlBarH, Phase: p, Class: phaseClass(p),
			Title: fmt.Sprintf("%s: %s %s in all (%s of its time)", who, p, seconds(d), ratio(d, sum))})
		x += w
	}
	return out
}

// runName names a run briefly: the holder says the partition already when
// it starts with it (the operator's "<campaign>-p<i>-r<k>-<random>"), and
// the page is about one campaign, so its name is dropped.
func runName(r *runrecord.RunRecord) string {
	name := r.Holder
	if r.Partition != "" && !strings.HasPrefix(r.Holder, r.Partition) {
		name = r.Partition + "/" + r.Holder
	}
	if r.Campaign != "" && len(name) > len(r.Campaign)+1 {
		name = strings.TrimPrefix(name, r.Campaign+"-")
	}
	// Each site's partitions read as theirs on a shared timeline; an HPC
	// site's partition ids start with the site already.
	if r.Site != "" && !strings.HasPrefix(name, r.Site) {
		name = r.Site + ": " + name
	}
	return name
}

func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// phaseClass is the CSS class colouring a phase; phases this build does
// not know are drawn as "other".
func phaseClass(p string) string {
	if slices.Contains(runrecord.Phases, p) {
		return "ph-" + p
	}
	return "ph-other"
}

// coarsen redraws a timeline too detailed for the page in bins of width
// seconds, each showing the phase that held most of it, merging
// neighbours of one phase.
func coarsen(ivs []runrecord.Interval, width float64) []runrecord.Interval {
	if width <= 0 {
		return ivs
	}
	bins := map[int]map[string]float64{}
	last := 0
	for _, iv := range ivs {
		for b := int(iv.Start / width); float64(b)*width < iv.End; b++ {
			if bins[b] == nil {
				bins[b] = map[string]float64{}
			}
			bins[b][iv.Phase] += min(iv.End, float64(b+1)*width) - max(iv.Start, float64(b)*width)
			last = max(last, b)
		}
	}
	var out []runrecord.Interval
	for b := 0; b <= last; b++ {
		best, held := "", 0.0
		for p, d := range bins[b] {
			if d > held || (d == held && p < best) {
				best, held = p, d
			}
		}
		if best == "" {
			continue
		}
		s, e := float64(b)*width, float64(b+1)*width
		if k := len(out) - 1; k >= 0 && out[k].Phase == best && out[k].End >= s-1e-9 {
			out[k].End = e
			continue
		}
		out = append(out, runrecord.Interval{Phase: best, Start: s, End: e})
	}
	return out
}
