package runrecord

import (
	"testing"
	"time"
)

func TestCostOf(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC)
	run := func(site string, slots int, secs float64) RunRecord {
		r := RunRecord{Site: site, Started: t0, Updated: t0.Add(time.Duration(secs * float64(time.Second)))}
		if slots >= 0 {
			r.Summary = &Summary{Slots: slots}
		}
		return r
	}
	c := CostOf([]RunRecord{
		run("cloud", 4, 100),  // 400
		run("cloud", 2, 30.5), // 61: a stopped run costs too
		run("hpc-a", 8, 10),   // 80
		run("", 1, 5),         // 5: a run that named no site
		run("cloud", -1, 50),  // no summary: nothing known
		run("cloud", 0, 50),   // a record from before slots were recorded
	}, t0.Add(time.Hour))
	if c.CoreSeconds != 546 {
		t.Errorf("core-seconds %v, want 546", c.CoreSeconds)
	}
	for site, want := range map[string]float64{"cloud": 461, "hpc-a": 80, "": 5} {
		if c.Sites[site] != want {
			t.Errorf("site %q: %v, want %v", site, c.Sites[site], want)
		}
	}
	if s := (RunRecord{Summary: &Summary{Slots: 2}, Started: t0, Updated: t0.Add(-time.Second)}).CoreSeconds(t0); s != 0 {
		t.Errorf("a record updated before its start: %v core-seconds, want 0", s)
	}
	// A run still going costs until now (its final record may not be
	// written yet when the campaign completes); one silent for long ended
	// at its last update.
	going := RunRecord{State: RunRunning, Summary: &Summary{Slots: 2}, Started: t0, Updated: t0.Add(5 * time.Second)}
	if s := going.CoreSeconds(t0.Add(20 * time.Second)); s != 40 {
		t.Errorf("a run still going: %v core-seconds by now, want 40", s)
	}
	if s := going.CoreSeconds(t0.Add(time.Hour)); s != 10 {
		t.Errorf("a run silent for an hour: %v core-seconds, want 10 (to its last update)", s)
	}
}
