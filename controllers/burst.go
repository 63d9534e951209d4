package controllers

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/operator/burst"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
)

// decideBurst sets how many partitions a campaign with spec.deadline
// runs, from the sites' rates in the ledger read this reconcile (package
// burst decides; this gathers its input and records why).
func (run *campaignRun) decideBurst(context.Context) (bool, error) {
	c := run.c
	s := &c.Status
	if c.Spec.Deadline == nil {
		s.EstimatedCompletion, s.LastScaleTime = nil, nil
		meta.RemoveStatusCondition(&s.Conditions, v1alpha1.ConditionOnSchedule)
		return true, nil
	}
	deadline, ok := deadlineOf(c)
	if !ok || run.status == nil || c.Spec.Suspend {
		return true, nil // no start time or no ledger: the count is held
	}
	total := planLetters(run.ledger.Plan())
	if total == 0 {
		run.setConditionStatus(v1alpha1.ConditionOnSchedule, metav1.ConditionUnknown, "NoLetterCounts",
			fmt.Sprintf("the plan has no letter counts, so no completion time can be estimated: keeping %d partitions", run.heldCount()))
		return true, nil
	}
	cur := run.heldCount()
	d := burst.Decide(run.burstInput(deadline, total, cur), run.r.Burst)
	n := int32(d.Partitions)
	run.burstCount = &n
	run.countPartitions()
	s.EstimatedCompletion = nil
	if !d.Finish.IsZero() {
		// To the minute, as the message says it: the status is not
		// rewritten for every second the estimate moves.
		t := metav1.NewTime(d.Finish.Truncate(time.Minute))
		s.EstimatedCompletion = &t
	}
	if d.Wait > 0 {
		run.requeueWithin(d.Wait)
	}
	status := metav1.ConditionTrue
	switch {
	case d.Reason == burst.ReasonMeasuring:
		status = metav1.ConditionUnknown
	case d.Late:
		status = metav1.ConditionFalse
	}
	was := meta.FindStatusCondition(run.before.Conditions, v1alpha1.ConditionOnSchedule)
	run.setConditionStatus(v1alpha1.ConditionOnSchedule, status, d.Reason, d.Message)
	switch {
	case n != cur:
		t := metav1.NewTime(run.now)
		s.LastScaleTime = &t
		run.normal(d.Reason, "Scale", d.Message)
	case d.Reason == burst.ReasonWillMiss && (was == nil || was.Reason != burst.ReasonWillMiss):
		run.warn(d.Reason, "Scale", d.Message)
	}
	return true, nil
}

// burstInput is the decision's input: the sites' rates from the ledger,
// this cluster's site apart.
func (run *campaignRun) burstInput(deadline time.Time, total int64, cur int32) burst.Input {
	p := run.c.Spec.Partitions
	lo, hi := burstBounds(p)
	in := burst.Input{Now: run.now, Deadline: deadline, Current: int(cur), Min: int(lo), Max: int(hi),
		CloudPartitions: int(run.c.Status.Partitions.Running)}
	if t := run.c.Status.LastScaleTime; t != nil {
		in.LastChange = t.Time
	}
	local := run.r.Site
	if local == "" {
		local = DefaultSite
	}
	done := int64(0)
	for _, st := range run.status.Sites {
		done += st.LettersDone
		site := siteRate(st)
		if st.Name == local {
			in.Cloud = site
		} else {
			in.Sites = append(in.Sites, site)
		}
	}
	in.Remaining = total - done
	return in
}

func siteRate(st ledger.SiteStatus) burst.Site {
	s := burst.Site{Name: st.Name, LettersPerSecond: st.LettersPerSecond, Running: st.Running, LastCommitted: st.LastCommitted, Window: st.LastCommitted.Sub(st.FirstStarted)}
	if st.ChunkSeconds > 0 {
		s.ChunkLettersPerSecond = float64(st.LettersDone) / st.ChunkSeconds
	}
	return s
}

// deadlineOf is c's spec.deadline as a time; false without one, or for
// one counted from a start that has not happened.
func deadlineOf(c *v1alpha1.SearchCampaign) (time.Time, bool) {
	d := c.Spec.Deadline
	switch {
	case d == nil:
	case d.Time != nil:
		return d.Time.Time, true
	case d.After != nil && c.Status.StartTime != nil:
		return c.Status.StartTime.Add(d.After.Duration), true
	}
	return time.Time{}, false
}

// heldCount is the count a deadline campaign runs until the burst
// decides otherwise: the last desired count, or partitions.count at the
// start, within [min, max].
func (run *campaignRun) heldCount() int32 {
	p := run.c.Spec.Partitions
	n := run.before.Partitions.Desired
	if n == 0 {
		n = p.Count
	}
	lo, hi := burstBounds(p)
	return max(lo, min(n, hi))
}

// burstBounds are partitions.min (default 1) and max (default count).
func burstBounds(p v1alpha1.Partitions) (lo, hi int32) {
	lo, hi = 1, p.Count
	if p.Min != nil {
		lo = *p.Min
	}
	if p.Max != nil {
		hi = *p.Max
	}
	return lo, max(lo, hi)
}

// planLetters is the plan's query letters (0 for plans without them).
func planLetters(p *ledger.Plan) int64 {
	if p == nil {
		return 0
	}
	if p.Queries.Letters > 0 {
		return p.Queries.Letters
	}
	var n int64
	for _, c := range p.Chunks {
		n += c.Letters
	}
	return n
}
