package engine

import (
	"slices"
	"time"

	"github.com/blastfleet/blastfleet/internal/engine/enginemetrics"
	"github.com/blastfleet/blastfleet/internal/storage/runrecord"
)

// The run's account lives in runrecord, which the CLI and the report read
// without linking the engine; these names keep the engine's code short.
type (
	Summary     = runrecord.Summary
	RankSummary = runrecord.RankSummary
	SimSummary  = runrecord.SimSummary
	QueryRange  = runrecord.QueryRange
	Interval    = runrecord.Interval
	Histogram   = runrecord.Histogram
	TaskRecord  = runrecord.TaskRecord
)

// Phases are S3aSim's names for where a rank's time goes.
var Phases = runrecord.Phases

// clock accumulates time per phase, and feeds the rank's timeline and
// its /metrics as it goes.
type clock struct {
	start    time.Time
	phases   map[string]float64
	timeline *timeline
	metrics  *enginemetrics.Rank
}

func newClock(metrics *enginemetrics.Rank) *clock {
	now := time.Now()
	return &clock{start: now, phases: map[string]float64{}, timeline: newTimeline(now), metrics: metrics}
}

// since adds the time since t to phase and returns now.
func (c *clock) since(phase string, t time.Time) time.Time {
	now := time.Now()
	c.interval(phase, t, now)
	return now
}

// interval adds [from, to) to phase.
func (c *clock) interval(phase string, from, to time.Time) {
	c.add(phase, to.Sub(from).Seconds(), from, to)
}

// add counts d seconds of phase and draws [from, to) on the timeline.
func (c *clock) add(phase string, d float64, from, to time.Time) {
	c.phases[phase] += d
	c.metrics.Phase(phase, d)
	c.timeline.add(phase, from, to)
}

// span starts a phase that may contain others (the master writes inside
// the merge under master-writing); the returned func adds the time since,
// less what the other phases took meanwhile, so nothing counts twice. On
// the timeline the span covers its whole time, drawn beneath the others.
func (c *clock) span(phase string) func() {
	start, before := time.Now(), c.named()
	return func() {
		now := time.Now()
		c.add(phase, max(0, now.Sub(start).Seconds()-(c.named()-before)), start, now)
	}
}

func (c *clock) named() float64 {
	var t float64
	for _, v := range c.phases {
		t += v
	}
	return t
}

// finish fills wall time, "other" (time in no named phase) and the
// timeline; a rank's time in "other" reaches /metrics only here.
func (c *clock) finish(r *RankSummary) {
	c.snapshot(r)
	c.metrics.Phase("other", r.Phases["other"])
}

// snapshot fills r with the account so far.
func (c *clock) snapshot(r *RankSummary) {
	r.Started = c.start
	r.WallSeconds = time.Since(c.start).Seconds()
	r.Phases = map[string]float64{}
	var named float64
	for _, p := range Phases[:len(Phases)-1] {
		r.Phases[p] = c.phases[p]
		named += c.phases[p]
	}
	r.Phases["other"] = max(0, r.WallSeconds-named)
	r.Timeline = slices.Clone(c.timeline.intervals)
}
