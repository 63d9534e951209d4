package engine_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/engine"
	"github.com/blastfleet/blastfleet/internal/engine/transport"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/refsearch"
)

// TestCampaignStopsAreNotFailures stops a partition five times at seeded
// random points while it holds chunks (as SIGTERM does: suspend,
// scale-down, preemption), with maxAttempts 1. No stop may count as a
// failure: no chunk is split or failed, each stopped chunk is free again
// at once (no wait for its lease to expire), and a last partition ends
// the campaign with the unsharded search's result.
func TestCampaignStopsAreNotFailures(t *testing.T) {
	f := synthFixture(t, nuclFamilies())
	s := search{program: blast.Blastn, outfmt: "6 std", workers: 2, groupBytes: 1}
	want := s.reference(t, f, false)
	db := f.shards(t, 3)
	// A stop that counted as a failure would split a chunk at once, and
	// one not released would hold the next partition up for 30 s.
	loc, st := planCampaignPolicy(t, f, db, s, 6, 30, ledger.Policy{MaxAttempts: 1, LeaseSeconds: 30, RenewSeconds: 5, SkewSeconds: 1})

	r := rand.New(rand.NewPCG(7, 11))
	stops := 0
	for i := range 5 {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		start := time.Now()
		go func() {
			_, err := partitionCtx(ctx, t, s, loc, st, fmt.Sprintf("p%d", i))
			done <- err
		}()
		var err error
		// Somewhere in the run: after 0-3 chunks were committed.
		if waitLeased(t, st, r.IntN(4), done, &err) {
			time.Sleep(time.Duration(r.IntN(400)) * time.Millisecond)
			cancel()
			err = <-done
		}
		cancel()
		if err == nil {
			t.Fatalf("stop %d: the partition finished before it was stopped; the search is too fast for this test", i+1)
		}
		status, serr := ledger.ReadStatus(context.Background(), st)
		if serr != nil {
			t.Fatal(serr)
		}
		if status.Leased != 0 {
			t.Errorf("stop %d: %d chunks still leased after the partition stopped; a stop must release them", i+1, status.Leased)
		}
		stops = status.StoppedAttempts
		t.Logf("stop %d after %s: %d of %d chunks committed, %d attempts stopped so far", i+1,
			time.Since(start).Round(time.Millisecond), status.Committed, status.Chunks, stops)
	}
	if _, err := partition(t, s, loc, st, "last"); err != nil {
		t.Fatal(err)
	}
	status, err := ledger.ReadStatus(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if !status.Complete || status.Chunks != 5 || status.Committed != 5 || status.QueriesFailed != 0 ||
		status.FailedAttempts.Total() != 0 || status.StoppedAttempts < 5 {
		t.Errorf("status %+v: want the 5 chunks committed whole, no failed attempt, at least 5 stopped", status)
	}
	var got bytes.Buffer
	if err := ledger.StreamResults(context.Background(), st, &got); err != nil {
		t.Fatal(err)
	}
	if d := refsearch.Diff(got.Bytes(), want); d != "" {
		t.Fatalf("campaign result differs from the unsharded search: %s", d)
	}
}

// waitLeased waits until some chunk is leased and at least k are
// committed: false if the partition ended first (its error in err).
func waitLeased(t *testing.T, st objstore.Store, k int, done chan error, err *error) bool {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
		select {
		case *err = <-done:
			return false
		case <-time.After(20 * time.Millisecond):
		}
		if s, serr := ledger.ReadStatus(context.Background(), st); serr == nil && s.Leased > 0 && s.Committed >= k {
			return true
		}
	}
	t.Fatal("no chunk leased within a minute")
	return false
}

// TestWorkerToldToStopStopsThePartition stops one worker alone (mpirun
// and a pod deletion signal the ranks one by one, so a worker often hears
// the SIGTERM before the master does): the master must take it as its own
// stop and release what it holds, not fail and leave leases to expire.
func TestWorkerToldToStopStopsThePartition(t *testing.T) {
	f := synthFixture(t, nuclFamilies())
	s := search{program: blast.Blastn, outfmt: "6 std", workers: 2, groupBytes: 1}
	db := f.shards(t, 3)
	loc, st := planCampaignPolicy(t, f, db, s, 6, 30, ledger.Policy{MaxAttempts: 1, LeaseSeconds: 30, RenewSeconds: 5, SkewSeconds: 1})
	l, err := ledger.Open(context.Background(), st, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	plan := l.Plan()
	cfg := s.config(t, plan.Database.Location, plan.Queries.Location, loc)
	cfg.Campaign = &engine.Campaign{Location: loc, Ledger: l, Holder: "p"}

	trs := transport.NewLocal(s.workers + 1)
	defer func() {
		for _, tr := range trs {
			tr.Close()
		}
	}()
	// Only worker 1's context is cancelled, as its own SIGTERM would.
	stopOne, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	for r := 1; r <= s.workers; r++ {
		ctx := context.Background()
		if r == 1 {
			ctx = stopOne
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = engine.Run(ctx, cfg, trs[r])
		}()
	}
	done := make(chan error, 1)
	go func() {
		_, err := engine.Run(context.Background(), cfg, trs[0])
		done <- err
	}()
	if !waitLeased(t, st, 1, done, &err) {
		t.Fatalf("the partition ended (%v) before the stop", err)
	}
	cancel()
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		t.Fatal("the master did not end within a minute of a worker's stop")
	}
	wg.Wait()
	if !errors.Is(err, context.Canceled) {
		t.Errorf("master: %v, want a stop (context.Canceled)", err)
	}
	status, err := ledger.ReadStatus(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if status.Leased != 0 || status.FailedAttempts.Total() != 0 || status.StoppedAttempts == 0 {
		t.Errorf("status %+v: want nothing leased, no failed attempt, a stopped attempt", status)
	}
}
