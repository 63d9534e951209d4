package kubecmd

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
)

// The ETA is the queries still to do divided by a rate of queries
// finished (done or failed) per unit of time. While --watch runs, the rate
// is measured over what the watch itself saw in the last etaWindow (it
// follows speed-ups and slow-downs); otherwise, or before the watch has
// seen progress over etaMinSpan, it is the average since status.startTime.
const (
	etaWindow  = 5 * time.Minute
	etaMinSpan = 10 * time.Second
)

// progressSample is how many queries were finished at a time.
type progressSample struct {
	at       time.Time
	finished int32
}

// etaTracker keeps the samples a watch has seen, within etaWindow.
type etaTracker struct{ samples []progressSample }

func (e *etaTracker) observe(at time.Time, c *v1alpha1.SearchCampaign) {
	e.samples = append(e.samples, progressSample{at: at, finished: c.Status.Queries.Done + c.Status.Queries.Failed})
	// Keep one sample older than the window, so the window is covered.
	for len(e.samples) > 2 && at.Sub(e.samples[1].at) > etaWindow {
		e.samples = e.samples[1:]
	}
}

// watched is the rate the watch measured, in queries per second, and the
// span it was measured over; ok is false without enough progress seen.
func (e *etaTracker) watched() (rate float64, span time.Duration, ok bool) {
	if e == nil || len(e.samples) < 2 {
		return 0, 0, false
	}
	first, last := e.samples[0], e.samples[len(e.samples)-1]
	span = last.at.Sub(first.at)
	if span < etaMinSpan || last.finished <= first.finished {
		return 0, 0, false
	}
	return float64(last.finished-first.finished) / span.Seconds(), span, true
}

// eta says when the campaign should finish and how that was estimated.
func eta(c *v1alpha1.SearchCampaign, tracker *etaTracker, now time.Time) string {
	s := c.Status
	switch {
	case s.Phase == v1alpha1.CampaignComplete:
		if s.StartTime != nil && s.CompletionTime != nil {
			return "done, in " + duration.HumanDuration(s.CompletionTime.Sub(s.StartTime.Time))
		}
		return "done"
	case s.Phase == v1alpha1.CampaignFailed:
		return "none: the campaign failed"
	case c.Spec.Suspend || s.Phase == v1alpha1.CampaignSuspended:
		return "none while the campaign is suspended"
	case s.Queries.Total == 0:
		return "unknown until the campaign is planned"
	}
	remaining := s.Queries.Total - s.Queries.Done - s.Queries.Failed
	if remaining <= 0 {
		return "any moment: every query is finished, the result is being assembled"
	}
	rate, span, ok := tracker.watched()
	how := ""
	if ok {
		how = fmt.Sprintf("over the last %s of watching", duration.HumanDuration(span))
	} else {
		finished := s.Queries.Done + s.Queries.Failed
		if s.StartTime == nil || finished == 0 || !now.After(s.StartTime.Time) {
			return "unknown until the first chunk is committed"
		}
		elapsed := now.Sub(s.StartTime.Time)
		rate = float64(finished) / elapsed.Seconds()
		how = fmt.Sprintf("the average since the start %s ago", duration.HumanDuration(elapsed))
	}
	when := "more than 100 days"
	if secs := float64(remaining) / rate; secs < 100*24*3600 {
		when = "~" + duration.HumanDuration(time.Duration(secs*float64(time.Second)))
	}
	return fmt.Sprintf("%s (%d queries to go at %s queries/min, %s)", when, remaining, perMinute(rate), how)
}

// perMinute formats a rate per second as per minute: three significant
// digits, and no exponent for large rates.
func perMinute(perSecond float64) string {
	if m := perSecond * 60; m < 100 {
		return fmt.Sprintf("%.3g", m)
	}
	return fmt.Sprintf("%.0f", perSecond*60)
}
