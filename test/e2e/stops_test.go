package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/ledger"
)

// testStopsNotFailures: a campaign with maxAttempts 1 is suspended
// mid-run, resumed, and its partition count lowered from 2 to 1 while it
// runs. Every partition stopped so is told to stop (SIGTERM): it records
// the chunks it held as stopped and releases them, so no stop counts as a
// failure, no chunk is split, and the campaign completes with the
// unsharded search's bytes.
func testStopsNotFailures(t *testing.T, tg *target, f *fixture, db string) {
	name := tg.name("e2e-stops")
	tg.cleanupCampaign(t, name)
	manifest := tg.campaignYAML(name, db, queriesKey)
	if !strings.Contains(manifest, "maxAttempts: 3") {
		t.Fatal("the campaign manifest no longer sets maxAttempts: 3")
	}
	tg.apply(t, strings.Replace(manifest, "maxAttempts: 3", "maxAttempts: 1", 1))
	tg.midRun(t, name)

	patch := func(p string) { tg.kubectl(t, "-n", tg.ns, "patch", "bsc", name, "--type=merge", "-p", p) }
	patch(`{"spec":{"suspend":true}}`)
	c := tg.waitPhase(t, name, v1alpha1.CampaignSuspended, time.Minute)
	st := tg.ledgerStore(t, c)
	// The partitions are gone; what they held must be released by their
	// stop, not left to expire (a lease here lasts 10 s).
	var s *ledger.Status
	waitFor(t, time.Minute, "the suspended campaign's chunks released", func() (bool, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var err error
		if s, err = ledger.ReadStatus(ctx, st); err != nil {
			return false, err.Error()
		}
		return s.Leased == 0, fmt.Sprintf("%d chunks leased", s.Leased)
	})
	t.Logf("%s suspended: %d of %d chunks committed, %d attempts stopped, failed attempts %+v",
		name, s.Committed, s.Chunks, s.StoppedAttempts, s.FailedAttempts)
	if s.StoppedAttempts == 0 {
		t.Errorf("suspending a partition that held a chunk recorded no stopped attempt")
	}

	patch(`{"spec":{"suspend":false}}`)
	tg.waitPhase(t, name, v1alpha1.CampaignRunning, time.Minute)
	tg.midRun(t, name)
	patch(`{"spec":{"partitions":{"count":1}}}`)
	c = tg.waitPhase(t, name, v1alpha1.CampaignComplete, campaignTimeout)
	s = tg.verify(t, c, f, expect{maxAttempts: 20})
	fa := c.Status.Chunks.FailedAttempts
	t.Logf("%s complete: %d attempts, %d stopped, failed attempts %+v", name, s.Attempts, c.Status.Chunks.StoppedAttempts, fa)
	if fa.ExitCode+fa.Signal+fa.Error+fa.Abandoned != 0 {
		t.Errorf("failed attempts %+v after suspend, resume and scale-down: a stop is not a failure", fa)
	}
	if c.Status.Chunks.StoppedAttempts < 1 {
		t.Errorf("status.chunks.stoppedAttempts = %d, want the suspend's stops counted", c.Status.Chunks.StoppedAttempts)
	}
}
