// Package burst decides how many cloud partitions a campaign with a
// deadline needs: from every site's measured rate and the letters left,
// it adds partitions (up to a maximum) when the campaign would miss its
// deadline and removes them (down to a minimum) when the other sites will
// make it with room to spare. It is a pure function of its Input: the
// operator gathers the input and carries the decision out.
package burst

import (
	"fmt"
	"time"
)

// Condition reasons, also the events' reasons when the count changes.
const (
	// ReasonAdding: the campaign would miss its deadline with fewer.
	ReasonAdding = "AddingPartitions"
	// ReasonRemoving: the sites make the deadline, with margin, without them.
	ReasonRemoving = "RemovingPartitions"
	// ReasonOnSchedule: the partitions running are enough.
	ReasonOnSchedule = "OnSchedule"
	// ReasonWillMiss: at the maximum and still late.
	ReasonWillMiss = "WillMissDeadline"
	// ReasonMeasuring: no rate is measured yet, so nothing is changed.
	ReasonMeasuring = "Measuring"
)

// Site is one site's measured rate.
type Site struct {
	Name string
	// LettersPerSecond it committed over Window.
	LettersPerSecond float64
	// ChunkLettersPerSecond is its rate per chunk searched at a time:
	// letters over the time its committed chunks took. Unlike
	// LettersPerSecond it does not depend on how many partitions ran.
	ChunkLettersPerSecond float64
	// Running are the chunks it searches now.
	Running int
	// LastCommitted is its latest commit: a site with no chunk running
	// and no commit for Policy.MinWindow has stopped, and counts for
	// nothing.
	LastCommitted time.Time
	// Window is the span the rate was measured over (first attempt to
	// latest commit): a rate over less than Policy.MinWindow is noise.
	Window time.Duration
}

// Input is what the decision looks at.
type Input struct {
	Now, Deadline time.Time
	// Remaining are the query letters not yet committed.
	Remaining int64
	// Sites are the other sites (HPC), which the operator does not scale.
	Sites []Site
	// Cloud is this cluster's site, whose partitions the decision counts.
	Cloud Site
	// CloudPartitions are those running now: Cloud.Running over them is
	// the chunks one partition searches at a time.
	CloudPartitions int
	// Current is the partition count now; Min and Max bound the decision.
	Current, Min, Max int
	// LastChange is when the count last changed (zero: never).
	LastChange time.Time
}

// Policy is the hysteresis that keeps the count from flapping.
type Policy struct {
	// MinWindow: a rate measured over less is not used.
	MinWindow time.Duration
	// Margin is the share of the time left before the deadline by which
	// the sites must finish early before partitions are removed.
	Margin float64
	// MinInterval is the least time between two changes of the count.
	MinInterval time.Duration
}

// DefaultPolicy: rates over at least 5 minutes, remove with 10% to spare,
// change at most every 5 minutes.
var DefaultPolicy = Policy{MinWindow: 5 * time.Minute, Margin: 0.1, MinInterval: 5 * time.Minute}

// Decision is the count to run and why.
type Decision struct {
	Partitions int
	// Reason is one of the Reason constants; Message says it with times.
	Reason, Message string
	// Finish is the estimated completion with Partitions (zero: unknown).
	Finish time.Time
	// Late: Finish is after the deadline.
	Late bool
	// Wait, when positive, is how long a change is held back by
	// Policy.MinInterval: decide again then.
	Wait time.Duration
}

// Decide is the burst decision. One cloud partition's rate is the cloud's
// rate per chunk times the chunks a running partition holds (at least
// one); before the cloud has one measured, it is assumed to be the
// fastest other site's rate per chunk (the prior: a partition and an HPC
// job both search a chunk at a time).
func Decide(in Input, p Policy) Decision {
	cur := clamp(in.Current, in.Min, in.Max)
	if in.Remaining <= 0 {
		return Decision{Partitions: in.Min, Reason: reasonFor(in.Min, cur, ReasonOnSchedule), Finish: in.Now,
			Message: change(in.Min, cur) + "nothing left to search"}
	}
	sites := measured(in.Sites, in.Now, p.MinWindow)
	per := perPartition(in, sites, p.MinWindow)
	if sites.rate == 0 && per == 0 {
		return Decision{Partitions: cur, Reason: ReasonMeasuring,
			Message: change(cur, cur) + "no working site's rate is measured yet (over at least " + p.MinWindow.String() + ")"}
	}
	e := estimate{now: in.Now, remaining: in.Remaining, sites: sites.rate, per: per}
	d := Decision{Partitions: cur}
	left := in.Deadline.Sub(in.Now)
	need := e.fewest(in.Min, in.Max, in.Deadline)
	spare := e.fewest(in.Min, in.Max, in.Deadline.Add(-time.Duration(p.Margin*float64(left))))
	switch {
	case left <= 0:
		d.Partitions = in.Max
	case need > cur:
		d.Partitions = need
	case spare < cur:
		d.Partitions = spare
	}
	held := d.Partitions != cur && in.Current == cur && !in.LastChange.IsZero() && in.Now.Sub(in.LastChange) < p.MinInterval
	if held {
		d.Wait = p.MinInterval - in.Now.Sub(in.LastChange)
	}
	d.Message = explain(in, e, sites, d.Partitions, cur, left)
	if held {
		d.Message = "holding " + plural(cur) + " until " + clock(in.LastChange.Add(p.MinInterval), in.Now) + " (changed at " + clock(in.LastChange, in.Now) + "), then " + d.Message
		d.Partitions = cur
	}
	d.Finish = e.finish(d.Partitions)
	d.Late = d.Finish.IsZero() || d.Finish.After(in.Deadline)
	status := ReasonOnSchedule
	if d.Late {
		status = ReasonWillMiss
	}
	d.Reason = reasonFor(d.Partitions, cur, status)
	return d
}

func reasonFor(n, cur int, same string) string {
	switch {
	case n > cur:
		return ReasonAdding
	case n < cur:
		return ReasonRemoving
	}
	return same
}

func clamp(n, lo, hi int) int { return max(lo, min(n, hi)) }

// siteRates are the other sites' measured rates, summed.
type siteRates struct {
	rate    float64
	fastest float64 // per chunk at a time
	names   []string
}

func measured(sites []Site, now time.Time, window time.Duration) siteRates {
	var s siteRates
	for _, site := range sites {
		stopped := site.Running == 0 && now.Sub(site.LastCommitted) > window
		if site.LettersPerSecond <= 0 || site.Window < window || stopped {
			continue
		}
		s.rate += site.LettersPerSecond
		s.fastest = max(s.fastest, perChunk(site))
		s.names = append(s.names, site.Name)
	}
	return s
}

// perChunk is a site's rate per chunk at a time (its whole rate when
// its chunks were not timed).
func perChunk(s Site) float64 {
	if s.ChunkLettersPerSecond > 0 {
		return s.ChunkLettersPerSecond
	}
	return s.LettersPerSecond
}

// perPartition is one cloud partition's rate: measured, or the prior.
func perPartition(in Input, sites siteRates, window time.Duration) float64 {
	c := in.Cloud
	if c.LettersPerSecond <= 0 || c.Window < window {
		return sites.fastest
	}
	held := 1.0
	if in.CloudPartitions > 0 {
		held = max(1, float64(c.Running)/float64(in.CloudPartitions))
	}
	return perChunk(c) * held
}

// estimate computes completion times from the rates.
type estimate struct {
	now       time.Time
	remaining int64
	sites     float64 // letters/s of the other sites
	per       float64 // letters/s of one cloud partition
}

// finish is when the work ends with n cloud partitions (zero: never).
func (e estimate) finish(n int) time.Time {
	r := e.sites + float64(n)*e.per
	if r <= 0 {
		return time.Time{}
	}
	return e.now.Add(time.Duration(float64(e.remaining) / r * float64(time.Second)))
}

// fewest is the fewest partitions in [lo, hi] that finish by t; hi when
// none does.
func (e estimate) fewest(lo, hi int, t time.Time) int {
	for n := lo; n < hi; n++ {
		if f := e.finish(n); !f.IsZero() && !f.After(t) {
			return n
		}
	}
	return hi
}

// Validate refuses a policy the decision cannot use.
func (p Policy) Validate() error {
	if p.Margin < 0 || p.Margin >= 1 || p.MinWindow < 0 || p.MinInterval < 0 {
		return fmt.Errorf("burst policy: margin %v must be in [0, 1), the window (%v) and interval (%v) not negative", p.Margin, p.MinWindow, p.MinInterval)
	}
	return nil
}
