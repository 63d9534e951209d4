package controllers

import (
	"context"
	"errors"
	"io"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers/executor"
	"github.com/blastfleet/blastfleet/internal/plan/search"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/ledger/ledgertest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// stallingStore is a directory store that, once stalled, answers no read
// until the caller gives up: a store that swallows packets.
type stallingStore struct {
	objstore.Store
	stalled atomic.Bool
}

func (s *stallingStore) stall(ctx context.Context) error {
	if !s.stalled.Load() {
		return nil
	}
	<-ctx.Done()
	return ctx.Err()
}

func (s *stallingStore) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	if err := s.stall(ctx); err != nil {
		return nil, err
	}
	return s.Store.Get(ctx, key)
}

func (s *stallingStore) List(ctx context.Context, prefix string) ([]objstore.Info, error) {
	if err := s.stall(ctx); err != nil {
		return nil, err
	}
	return s.Store.List(ctx, prefix)
}

func (s *stallingStore) Stat(ctx context.Context, key string) (objstore.Info, error) {
	if err := s.stall(ctx); err != nil {
		return objstore.Info{}, err
	}
	return s.Store.Stat(ctx, key)
}

// plannedStore is a directory store holding a plan of four chunks, and
// the ledger opened on it.
func plannedStore(t *testing.T) (*stallingStore, *ledger.Ledger) {
	t.Helper()
	dir, err := objstore.NewDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st := &stallingStore{Store: dir}
	plan := &ledger.Plan{
		Name:     "poll",
		Queries:  ledger.Queries{Location: "s3://b/q.fa", SHA256: "aa", Size: 100, Count: 4, Letters: 400},
		Database: ledger.Database{Location: "s3://b/db", Name: "db", Type: "prot", ManifestSHA256: "bb"},
		Search:   search.MustParse(search.Request{Program: "blastp", Outfmt: "6", MaxTargetSeqs: 500, Evalue: 10}),
		Chunks:   []ledger.Chunk{{First: 0, End: 1}, {First: 1, End: 2}, {First: 2, End: 3}, {First: 3, End: 4}},
	}
	ctx := context.Background()
	if err := ledger.WritePlan(ctx, st, plan); err != nil {
		t.Fatal(err)
	}
	l, err := ledger.Open(ctx, st, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return st, l
}

// testPoller polls every interval with the reconciler's read, until the
// test ends.
func testPoller(t *testing.T, interval, timeout time.Duration) *ledgerPoller {
	t.Helper()
	p := newLedgerPoller(interval, 2, timeout)
	p.read = func(ctx context.Context, l *ledger.Ledger, st objstore.Store) *ledgerRead {
		return readLedgerState(ctx, l, st, time.Minute)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return p
}

var pollKey = types.NamespacedName{Namespace: "ns", Name: "c"}

// nextWake is the campaign the poller wakes next, within d; "" if none.
func nextWake(p *ledgerPoller, d time.Duration) string {
	select {
	case ev := <-p.events:
		return ev.Object.GetNamespace() + "/" + ev.Object.GetName()
	case <-time.After(d):
		return ""
	}
}

// TestLedgerPollerWakesOnChange: the first read wakes the campaign, reads
// that find the same leave it alone, and a read after chunks were
// committed wakes it with their counts.
func TestLedgerPollerWakesOnChange(t *testing.T) {
	st, l := plannedStore(t)
	p := testPoller(t, 20*time.Millisecond, time.Second)
	p.register("uid", pollKey, l, st)
	if got := nextWake(p, 5*time.Second); got != "ns/c" {
		t.Fatalf("first read woke %q, want ns/c", got)
	}
	rd := p.result("uid", l)
	if rd == nil || rd.err != nil || rd.status.Chunks != 4 || rd.status.Committed != 0 {
		t.Fatalf("first read = %+v, want 4 chunks, none committed", rd)
	}
	if got := nextWake(p, 200*time.Millisecond); got != "" {
		t.Fatalf("an unchanged ledger woke %q", got)
	}
	ledgertest.Drive(t, st, "partition-0", func(ledger.Range) *ledger.FailureReason { return nil })
	// Each commit the poller saw wakes the campaign: the last, its status.
	// A read that found the last chunk leased and not yet committed (the
	// endgame) waits endgameInterval, up to 1.2 s with the spread, for the
	// next: a wait of 1 s failed under load.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if got := nextWake(p, 3*time.Second); got != "ns/c" {
			t.Fatalf("committed chunks woke %q, want ns/c", got)
		}
		if rd = p.result("uid", l); rd.status.Complete {
			break
		}
	}
	if rd == nil || rd.status.Committed != 4 || !rd.status.Complete {
		t.Fatalf("read after the commits = %+v, want 4 committed, complete", rd)
	}
	if p.result("uid", nil) != nil {
		t.Error("a read is returned for a handle the campaign did not register with")
	}
}

// TestLedgerPollerEndgameCadence: a campaign whose last chunks are all
// leased is read again after endgameInterval, not after the poll
// interval the loop's timer was set to while its read was under way (it
// was: 3 s between reads at the end of every campaign on the local stack).
func TestLedgerPollerEndgameCadence(t *testing.T) {
	st, l := plannedStore(t)
	p := newLedgerPoller(10*time.Second, 2, time.Second) // endgame: 2 s
	var reads atomic.Int32
	p.read = func(ctx context.Context, l *ledger.Ledger, st objstore.Store) *ledgerRead {
		reads.Add(1)
		return &ledgerRead{at: time.Now(), status: &ledger.Status{Chunks: 1, Leased: 1}}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Start(ctx) }()
	defer func() { cancel(); <-done }()
	p.register("uid", pollKey, l, st)
	// Reads at 0 and within 2.4 s (the endgame's spread); the interval's
	// next would be 8 s or more later.
	time.Sleep(3 * time.Second)
	if n := reads.Load(); n < 2 {
		t.Fatalf("%d reads in 3 s of an endgame (reads due every %s), want at least 2", n, endgameInterval(p.interval))
	}
}

// TestLedgerPollerForget: a forgotten campaign is read no more and has
// no read; a read under way when it was forgotten is dropped, not kept
// and not woken.
func TestLedgerPollerForget(t *testing.T) {
	st, l := plannedStore(t)
	p := newLedgerPoller(10*time.Millisecond, 2, time.Second)
	reading, release := make(chan struct{}, 1), make(chan struct{})
	var reads atomic.Int32
	p.read = func(ctx context.Context, l *ledger.Ledger, st objstore.Store) *ledgerRead {
		reads.Add(1)
		reading <- struct{}{}
		<-release
		return readLedgerState(ctx, l, st, time.Minute)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Start(ctx) }()
	defer func() { cancel(); <-done }()

	p.register("uid", pollKey, l, st)
	<-reading
	p.forget("uid")
	close(release)
	if got := nextWake(p, 200*time.Millisecond); got != "" {
		t.Fatalf("a forgotten campaign's read woke %q", got)
	}
	if rd := p.result("uid", l); rd != nil {
		t.Fatalf("a forgotten campaign has a read: %+v", rd)
	}
	if n := reads.Load(); n != 1 {
		t.Fatalf("%d reads, want only the one under way when it was forgotten", n)
	}
}

// TestLedgerPollerTimeout: a store that answers nothing costs a read its
// deadline, not the poller for ever; the error wakes the campaign at each
// read (it needs the reconcile's attention), and other campaigns are
// read meanwhile.
func TestLedgerPollerTimeout(t *testing.T) {
	st, l := plannedStore(t)
	ok, okLedger := plannedStore(t)
	p := testPoller(t, 20*time.Millisecond, 100*time.Millisecond)
	st.stalled.Store(true)
	p.register("stalled", types.NamespacedName{Namespace: "ns", Name: "stalled"}, l, st)
	p.register("ok", pollKey, okLedger, ok)
	woke := map[string]int{}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && (woke["ns/stalled"] < 2 || woke["ns/c"] < 1); {
		woke[nextWake(p, time.Second)]++
	}
	if woke["ns/stalled"] < 2 || woke["ns/c"] < 1 {
		t.Fatalf("woken %v: want the stalled campaign at each read (twice at least) and the other once", woke)
	}
	rd := p.result("stalled", l)
	if rd == nil || !errors.Is(rd.err, context.DeadlineExceeded) {
		t.Fatalf("stalled read = %+v, want its deadline exceeded", rd)
	}
	if !rd.needsAttention() || rd.retried {
		t.Errorf("a failed poll: needsAttention %t retried %t, want true, false", rd.needsAttention(), rd.retried)
	}
}

// TestLedgerReadSame: what counts as news.
func TestLedgerReadSame(t *testing.T) {
	a := &ledgerRead{status: &ledger.Status{Chunks: 4, Committed: 1}, version: "e1"}
	for _, c := range []struct {
		name string
		b    *ledgerRead
		same bool
	}{
		{"none before", nil, false},
		{"the same counts in another summary", &ledgerRead{status: &ledger.Status{Chunks: 4, Committed: 1}, version: "e2"}, true},
		{"a chunk committed", &ledgerRead{status: &ledger.Status{Chunks: 4, Committed: 2}}, false},
		{"a store error", &ledgerRead{err: errors.New("down")}, false},
		{"the plan changed", &ledgerRead{status: &ledger.Status{Chunks: 4, Committed: 1}, planErr: ledger.ErrPlanChanged}, false},
		{"the result assembled", &ledgerRead{status: &ledger.Status{Chunks: 4, Committed: 1}, asm: &ledger.AssembledResult{Size: 1}}, false},
	} {
		if got := a.same(c.b); got != c.same {
			t.Errorf("%s: same = %t, want %t", c.name, got, c.same)
		}
	}
}

// TestReadAfterExits: a poller's read older than a partition's exit 0
// does not count as the ledger's word on it (the partition may have
// committed the last chunk since, and would be replaced for nothing); the
// campaign is then read once past the exit (and the clocks' skew), and
// woken even if nothing changed. A read
// after the exit, or one the reconcile made, counts.
func TestReadAfterExits(t *testing.T) {
	st, l := plannedStore(t)
	p := testPoller(t, time.Hour, time.Second)
	p.register("uid", pollKey, l, st)
	if got := nextWake(p, 5*time.Second); got != "ns/c" {
		t.Fatalf("first read woke %q, want ns/c", got)
	}
	rd := p.result("uid", l)
	c := &v1alpha1.SearchCampaign{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c", UID: "uid"}}
	run := &campaignRun{r: &CampaignReconciler{poller: p}, c: c, read: rd, status: rd.status, readCached: true}
	exited := func(at time.Time) []partition {
		return []partition{{state: executor.State{Phase: executor.Running}}, {index: 1, state: executor.State{Phase: executor.Succeeded, FinishedAt: at}}}
	}

	run.parts = exited(rd.at.Add(-time.Minute))
	if !run.readAfterExits() {
		t.Error("a read a minute after the exit does not count")
	}
	if got := nextWake(p, 200*time.Millisecond); got != "" {
		t.Fatalf("a read after every exit woke %q", got)
	}

	run.parts = exited(rd.at)
	if run.readAfterExits() {
		t.Error("a read made before the exit counts")
	}
	// The hour's interval is not waited: the next read is past the exit,
	// and wakes the campaign though the ledger did not change.
	if got := nextWake(p, 5*time.Second); got != "ns/c" {
		t.Fatalf("the refreshed read woke %q, want ns/c", got)
	}
	again := p.result("uid", l)
	if again.version != rd.version || !again.at.After(rd.at) {
		t.Errorf("the unchanged read: version %q at %v, want version %q after %v", again.version, again.at, rd.version, rd.at)
	}
	run.read, run.readCached = again, true
	if !run.readAfterExits() {
		t.Error("the read made after the exit does not count")
	}

	run.read, run.readCached = rd, false
	if !run.readAfterExits() {
		t.Error("a read the reconcile made itself does not count")
	}
}

// TestUnpolledCampaignReadsItsLedger: a running campaign the poller has
// no read of (an operator restarted, or a reconcile of a cached copy
// older than the campaign's completion, after the poller forgot it) reads
// its ledger in the reconcile and registers with that read. Taking no
// read for "not read yet" had such a reconcile create again the
// partitions its completion had just deleted.
func TestUnpolledCampaignReadsItsLedger(t *testing.T) {
	st, l := plannedStore(t)
	ledgertest.Drive(t, st, "partition-0", func(ledger.Range) *ledger.FailureReason { return nil })
	p := newLedgerPoller(time.Hour, 1, time.Second) // not started: only the reconcile reads
	c := &v1alpha1.SearchCampaign{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c", UID: "uid"},
		Status: v1alpha1.SearchCampaignStatus{Phase: v1alpha1.CampaignRunning}}
	run := &campaignRun{r: &CampaignReconciler{poller: p}, c: c, before: c.Status.DeepCopy(), ledger: l, store: st}
	rd, ok, err := run.ledgerRead(context.Background())
	if err != nil || !ok {
		t.Fatalf("ledgerRead: %v, %t", err, ok)
	}
	if rd == nil || rd.err != nil || !rd.status.Complete || rd.status.Committed != 4 {
		t.Fatalf("read %+v, want the ledger's: 4 committed, complete", rd)
	}
	if run.readCached {
		t.Error("the reconcile's own read is marked as the poller's")
	}
	if got := p.result("uid", l); got != rd {
		t.Errorf("the poller's last read is %+v, want the reconcile's", got)
	}
}
