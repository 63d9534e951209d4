package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// planWithPolicy writes a plan of chunks with pol and opens a ledger on it.
func planWithPolicy(t *testing.T, st objstore.Store, chunks []Chunk, pol Policy, opts Options) *Ledger {
	t.Helper()
	p := testPlan(chunks)
	p.Policy = pol
	if err := WritePlan(context.Background(), st, p); err != nil {
		t.Fatal(err)
	}
	return open(t, st, opts)
}

// TestStopsUseNoAttempt: with maxAttempts 1, a chunk stopped five times
// (its partition told to stop each time) is neither split nor failed; it
// is leasable again at once, and committed whole by the sixth attempt.
func TestStopsUseNoAttempt(t *testing.T) {
	forStores(t, func(t *testing.T, fresh func() objstore.Store) {
		ctx := context.Background()
		st := fresh()
		l := planWithPolicy(t, st, []Chunk{{0, 4, 0}}, Policy{MaxAttempts: 1}, Options{})
		for i := 1; i <= 5; i++ {
			ls := acquire(t, l, "p")
			if ls.Range != (Range{0, 4}) || ls.Attempt != i {
				t.Fatalf("stop %d: leased %s attempt %d, want [0,4) attempt %d", i, ls.Range, ls.Attempt, i)
			}
			if err := ls.Stop(ctx, "SIGTERM"); err != nil {
				t.Fatal(err)
			}
			if !ls.Released() {
				t.Fatal("Stop left the lease held")
			}
		}
		ls := acquire(t, l, "p")
		if ls.Range != (Range{0, 4}) {
			t.Fatalf("after five stops leased %s, want the whole chunk [0,4)", ls.Range)
		}
		if err := commit(t, ls); err != nil {
			t.Fatal(err)
		}
		s, err := l.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !s.Complete || s.Committed != 1 || s.Chunks != 1 || s.QueriesFailed != 0 || s.StoppedAttempts != 5 ||
			s.FailedAttempts.Total() != 0 || s.Attempts != 6 {
			t.Errorf("status %+v", s)
		}
	})
}

// TestAbandonedBudget: attempts that end without a word (the holder died,
// its lease expired) have their own, larger budget; a reported failure is
// held to maxAttempts.
func TestAbandonedBudget(t *testing.T) {
	ctx := context.Background()
	st, err := objstore.NewDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	clk := newClock()
	pol := Policy{MaxAttempts: 1, MaxAbandoned: 3, LeaseSeconds: 10, RenewSeconds: 2, SkewSeconds: 1}
	l := planWithPolicy(t, st, ChunkByQueries(4, 2), pol, Options{Now: clk.Now})
	// [0,2): three holders die in turn; the fourth take splits it.
	for i := 1; i <= 3; i++ {
		if ls := acquire(t, l, "p"); ls.Range != (Range{0, 2}) || ls.Attempt != i {
			t.Fatalf("take %d: %s attempt %d", i, ls.Range, ls.Attempt)
		}
		clk.Advance(12 * time.Second)
	}
	ls := acquire(t, l, "p")
	if ls.Range != (Range{0, 1}) {
		t.Fatalf("after 3 abandoned attempts leased %s, want the split's [0,1)", ls.Range)
	}
	// A reported failure: maxAttempts 1 splits [2,4) at once.
	l2 := open(t, st, Options{Now: clk.Now})
	var other *Lease
	for other == nil || other.Range.First < 2 {
		other = acquire(t, l2, "q")
	}
	if other.Range != (Range{2, 4}) {
		t.Fatalf("leased %s, want [2,4)", other.Range)
	}
	if err := other.Fail(ctx, FailureReason{Message: "blastn exited", ExitCode: 1}); err != nil {
		t.Fatal(err)
	}
	if ls := acquire(t, l2, "q"); ls.Range != (Range{2, 3}) {
		t.Fatalf("after [2,4) failed once leased %s, want the split's [2,3)", ls.Range)
	}
	s, err := l2.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.FailedAttempts.Abandoned != 3 || s.FailedAttempts.ExitCode != 1 {
		t.Errorf("failed attempts %+v, want 3 abandoned and 1 exit code", s.FailedAttempts)
	}
	want := "3 attempts ended without a result or a reported failure (their partitions died or lost touch with the store)"
	if o := readOutcome(t, st, Range{0, 2}); o.Outcome != outcomeSplit || o.Failure == nil || o.Failure.Message != want {
		t.Errorf("[0,2) decided %+v, want split with %q", o, want)
	}
	if o := readOutcome(t, st, Range{2, 4}); o.Outcome != outcomeSplit {
		t.Errorf("[2,4) decided %+v after one failure with maxAttempts 1, want split", o)
	}
}

// TestOldPlanAbandonedDefault: a plan written before maxAbandoned existed
// reads with the default, at least maxAttempts.
func TestOldPlanAbandonedDefault(t *testing.T) {
	for _, c := range []struct{ maxAttempts, want int }{{3, DefaultMaxAbandoned}, {12, 12}} {
		p := Policy{MaxAttempts: c.maxAttempts, LeaseSeconds: 300, RenewSeconds: 60, SkewSeconds: 30}
		if got := p.withDefaults().MaxAbandoned; got != c.want {
			t.Errorf("maxAttempts %d: maxAbandoned %d, want %d", c.maxAttempts, got, c.want)
		}
	}
	ctx := context.Background()
	st, err := objstore.NewDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := testPlan([]Chunk{{0, 2, 0}})
	p.SchemaVersion, p.Policy = SchemaVersion, Policy{MaxAttempts: 3, LeaseSeconds: 300, RenewSeconds: 60, SkewSeconds: 30}
	data, _ := json.Marshal(p)
	if _, err := st.PutIfAbsent(ctx, PlanKey, data); err != nil {
		t.Fatal(err)
	}
	if l := open(t, st, Options{}); l.policy().MaxAbandoned != DefaultMaxAbandoned {
		t.Errorf("old plan's policy %+v", l.policy())
	}
}

func readOutcome(t *testing.T, st objstore.Store, r Range) outcomeRecord {
	t.Helper()
	data, _, err := st.GetBytes(context.Background(), r.dir()+commitName)
	if err != nil {
		t.Fatal(err)
	}
	var o outcomeRecord
	if err := json.Unmarshal(data, &o); err != nil {
		t.Fatal(err)
	}
	return o
}

// TestTakeoverAbortsDeadUpload: a holder that died mid-upload leaves an
// unfinished multipart upload of its result; the partition that takes the
// chunk over aborts it.
func TestTakeoverAbortsDeadUpload(t *testing.T) {
	forStores(t, func(t *testing.T, fresh func() objstore.Store) {
		ctx := context.Background()
		st := fresh()
		clk := newClock()
		l := planWithPolicy(t, st, []Chunk{{0, 2, 0}}, Policy{MaxAttempts: 3, LeaseSeconds: 10, RenewSeconds: 2, SkewSeconds: 1}, Options{Now: clk.Now})
		dead := acquire(t, l, "dead")
		up, err := st.NewUpload(ctx, dead.ResultKey())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := up.PutPart(ctx, 1, []byte("half a result")); err != nil {
			t.Fatal(err)
		}
		clk.Advance(12 * time.Second) // the holder is gone; its lease lapses
		taker := acquire(t, l, "taker")
		if taker.Attempt != 2 {
			t.Fatalf("took attempt %d", taker.Attempt)
		}
		if _, err := st.ResumeUpload(ctx, dead.ResultKey(), up.ID()); !errors.Is(err, objstore.ErrNotExist) {
			t.Errorf("the dead attempt's upload survived the takeover: %v", err)
		}
	})
}

// stopDuringCount cancels the caller's context when the attempt is about
// to be counted: a partition told to stop in the middle of Acquire.
type stopDuringCount struct {
	objstore.Store
	cancel func()
}

func (s stopDuringCount) PutIfAbsent(ctx context.Context, key string, data []byte) (string, error) {
	if strings.HasSuffix(key, attemptsName) {
		s.cancel()
		return "", ctx.Err()
	}
	return s.Store.PutIfAbsent(ctx, key, data)
}

// TestAcquireStoppedMidwayReleases: an Acquire whose context ends after
// the lease was taken but before the attempt was counted gives the lease
// back, so the chunk is not held for a lease's time by nobody.
func TestAcquireStoppedMidwayReleases(t *testing.T) {
	st, err := objstore.NewDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	planWithPolicy(t, st, []Chunk{{0, 2, 0}}, Policy{MaxAttempts: 1}, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	l := open(t, stopDuringCount{st, cancel}, Options{})
	if _, err := l.Acquire(ctx, "p"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Acquire = %v, want context.Canceled", err)
	}
	s, err := ReadStatus(context.Background(), st)
	if err != nil || s.Leased != 0 {
		t.Fatalf("status %+v, %v: the lease taken midway must be released", s, err)
	}
	if ls := acquire(t, open(t, st, Options{}), "q"); ls.Range != (Range{0, 2}) || ls.Attempt != 1 {
		t.Errorf("next Acquire got %s attempt %d, want [0,2) attempt 1 at once", ls.Range, ls.Attempt)
	}
}

// cancelAfterLeaseWrite takes the lease write and then reports the
// caller's cancellation, as a request the store served while the client
// gave up.
type cancelAfterLeaseWrite struct {
	objstore.Store
	cancel func()
}

func (s cancelAfterLeaseWrite) PutIfAbsent(ctx context.Context, key string, data []byte) (string, error) {
	if strings.HasSuffix(key, leaseName) {
		if _, err := s.Store.PutIfAbsent(context.Background(), key, data); err != nil {
			return "", err
		}
		s.cancel()
		return "", ctx.Err()
	}
	return s.Store.PutIfAbsent(ctx, key, data)
}

// TestAcquireStoppedAfterLeaseWrite: a lease the store wrote while the
// stopping caller gave up on the request is found to be ours and given
// back.
func TestAcquireStoppedAfterLeaseWrite(t *testing.T) {
	st, err := objstore.NewDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	planWithPolicy(t, st, []Chunk{{0, 2, 0}}, Policy{MaxAttempts: 1}, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	l := open(t, cancelAfterLeaseWrite{st, cancel}, Options{})
	if _, err := l.Acquire(ctx, "p"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Acquire = %v, want context.Canceled", err)
	}
	if s, err := ReadStatus(context.Background(), st); err != nil || s.Leased != 0 {
		t.Fatalf("status %+v, %v: the lease written as the caller gave up must be released", s, err)
	}
}

// A stop is on record from its first write, the lease's release: a
// partition killed right after it (mpirun's SIGKILL a second after its
// SIGTERM) leaves the chunk free at once and the attempt stopped, not
// abandoned; the next taker folds the stop into attempts.json.
func TestStopOnRecordFromTheRelease(t *testing.T) {
	forStores(t, func(t *testing.T, fresh func() objstore.Store) {
		ctx := context.Background()
		st := fresh()
		l := planWithPolicy(t, st, []Chunk{{0, 4, 0}}, Policy{MaxAttempts: 1, MaxAbandoned: 1}, Options{})
		for i := 1; i <= 3; i++ {
			ls := acquire(t, l, "p")
			if ls.Attempt != i {
				t.Fatalf("stop %d: attempt %d", i, ls.Attempt)
			}
			// Killed after the release, before attempts.json was written.
			if err := ls.release(ctx, &Stop{At: time.Now().UTC(), Reason: "SIGTERM"}); err != nil {
				t.Fatal(err)
			}
			s, err := l.Status(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if s.Leased != 0 || s.StoppedAttempts != i || s.FailedAttempts.Total() != 0 {
				t.Fatalf("after stop %d: %d leased, %d stopped, failed %+v: want the chunk free and every attempt stopped",
					i, s.Leased, s.StoppedAttempts, s.FailedAttempts)
			}
		}
		ls := acquire(t, l, "p") // at once: no lease to wait out, no budget used
		if ls.Attempt != 4 || ls.Range != (Range{0, 4}) {
			t.Fatalf("after three stops leased %s attempt %d", ls.Range, ls.Attempt)
		}
		att, _, err := l.readAttempts(ctx, ls.Range, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range att.Attempts[:3] {
			if a.Stop == nil {
				t.Errorf("attempt %d: the stop was not folded into attempts.json", a.Number)
			}
		}
	})
}

// countLandsThenStop writes the attempt count and then reports the
// caller's cancellation, as a count the store served while the stopping
// client gave up on it.
type countLandsThenStop struct {
	objstore.Store
	cancel func()
}

func (s countLandsThenStop) PutIfAbsent(ctx context.Context, key string, data []byte) (string, error) {
	if strings.HasSuffix(key, attemptsName) {
		if _, err := s.Store.PutIfAbsent(context.Background(), key, data); err != nil {
			return "", err
		}
		s.cancel()
		return "", ctx.Err()
	}
	return s.Store.PutIfAbsent(ctx, key, data)
}

// TestAcquireStoppedAfterCount: a partition told to stop while its attempt
// count was being written (the count landed) gives the lease back with
// the stop in it, so that attempt counts as stopped, not abandoned.
func TestAcquireStoppedAfterCount(t *testing.T) {
	st, err := objstore.NewDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	planWithPolicy(t, st, []Chunk{{0, 2, 0}}, Policy{MaxAttempts: 1, MaxAbandoned: 1}, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	l := open(t, countLandsThenStop{st, cancel}, Options{})
	if _, err := l.Acquire(ctx, "p"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Acquire = %v, want context.Canceled", err)
	}
	s, err := ReadStatus(context.Background(), st)
	if err != nil || s.Leased != 0 || s.Attempts != 1 || s.StoppedAttempts != 1 || s.FailedAttempts.Total() != 0 {
		t.Fatalf("status %+v, %v: want the counted attempt stopped and its lease released", s, err)
	}
	if ls := acquire(t, open(t, st, Options{}), "q"); ls.Range != (Range{0, 2}) || ls.Attempt != 2 {
		t.Errorf("next Acquire got %s attempt %d, want [0,2) attempt 2 at once", ls.Range, ls.Attempt)
	}
}

// TestStopsWithoutEndSplitTheChunk: a chunk whose attempts are stopped
// every time (its own search gets its partition evicted, or outlasts a
// site's time limit) is split once maxStopped stops are on record, down
// to the query that does it, which is recorded failed saying so; its
// neighbour, which stops nothing, is committed (issue 30, finding 8).
func TestStopsWithoutEndSplitTheChunk(t *testing.T) {
	forStores(t, func(t *testing.T, fresh func() objstore.Store) {
		ctx := context.Background()
		st := fresh()
		l := planWithPolicy(t, st, []Chunk{{0, 2, 0}}, Policy{MaxAttempts: 1, MaxStopped: 3}, Options{})
		// Query 1 stops whatever holds it; query 0 alone commits.
		for round := 0; round < 20; round++ {
			ls, err := l.Acquire(ctx, "p")
			if errors.Is(err, ErrNoChunk) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if ls.Range.End > 1 {
				if err := ls.Stop(ctx, "SIGTERM: the pod was evicted (ephemeral storage)"); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if err := commit(t, ls); err != nil {
				t.Fatal(err)
			}
		}
		s, err := l.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !s.Complete || s.QueriesFailed != 1 || s.FailedAttempts.Total() != 0 || s.StoppedAttempts != 6 {
			t.Fatalf("status %+v: want complete, query 1 failed, no failed attempt, 6 stops (3 of [0,2), 3 of [1,2))", s)
		}
		failed := s.FailedQueries
		if len(failed) != 1 || failed[0].Query != 1 || !strings.Contains(failed[0].Reason.Message, "3 attempts were stopped") ||
			!strings.Contains(failed[0].Reason.Message, "ephemeral storage") {
			t.Errorf("failed queries %+v: want query 1, saying its attempts were stopped", failed)
		}
	})
}
