package engine_test

import (
	"bytes"
	"context"
	"path"
	"sync"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/refsearch"
)

// slowCommits is a store whose first commit marker takes delay to write,
// and which notes when chunks' lease records are written: created (a
// lease taken) or rewritten (renewed).
type slowCommits struct {
	objstore.Store
	delay time.Duration

	mu       sync.Mutex
	commits  []window // one per commit marker written
	leases   []event
	renewals []event
}

type window struct {
	chunk      string
	start, end time.Time
}

type event struct {
	chunk string
	at    time.Time
}

func (s *slowCommits) PutIfAbsent(ctx context.Context, key string, data []byte) (string, error) {
	switch path.Base(key) {
	case "lease.json":
		s.mu.Lock()
		s.leases = append(s.leases, event{chunk: path.Dir(key), at: time.Now()})
		s.mu.Unlock()
		fallthrough
	default:
		return s.Store.PutIfAbsent(ctx, key, data)
	case "commit.json":
	}
	start := time.Now()
	s.mu.Lock()
	first := len(s.commits) == 0
	s.mu.Unlock()
	if first {
		select {
		case <-time.After(s.delay):
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	etag, err := s.Store.PutIfAbsent(ctx, key, data)
	s.mu.Lock()
	s.commits = append(s.commits, window{chunk: path.Dir(key), start: start, end: time.Now()})
	s.mu.Unlock()
	return etag, err
}

func (s *slowCommits) PutIfMatch(ctx context.Context, key string, data []byte, etag string) (string, error) {
	if path.Base(key) == "lease.json" {
		s.mu.Lock()
		s.renewals = append(s.renewals, event{chunk: path.Dir(key), at: time.Now()})
		s.mu.Unlock()
	}
	return s.Store.PutIfMatch(ctx, key, data, etag)
}

// While a commit is slow, the master's other leases are still renewed and
// the next chunk is leased: storage work runs beside the master's loop,
// and commits beside leasing. (Before the lanes, the loop waited on each
// commit, and nothing was renewed or leased meanwhile.)
func TestRenewalsGoOnDuringSlowCommit(t *testing.T) {
	f := synthFixture(t, nuclFamilies())
	s := search{program: blast.Blastn, outfmt: "6 std", workers: 2}
	want := s.reference(t, f, false)
	db := f.shards(t, 2)
	loc, st := planCampaign(t, f, db, s, 5, 30)
	ctx := context.Background()
	// Renew every second on a 4 s lease, and make the first commit take
	// longer than the lease.
	plan, err := ledger.ReadPlan(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	plan.Policy = ledger.Policy{MaxAttempts: 2, LeaseSeconds: 4, RenewSeconds: 1, SkewSeconds: 1}
	if err := st.Delete(ctx, ledger.PlanKey); err != nil {
		t.Fatal(err)
	}
	if err := ledger.WritePlan(ctx, st, plan); err != nil {
		t.Fatal(err)
	}
	slow := &slowCommits{Store: st, delay: 5 * time.Second}
	sum, err := partition(t, s, loc, slow, "p0")
	if err != nil {
		t.Fatal(err)
	}
	if sum.ChunksCommitted != 6 {
		t.Errorf("committed %d chunks, want 6", sum.ChunksCommitted)
	}
	var got bytes.Buffer
	if err := ledger.StreamResults(ctx, st, &got); err != nil {
		t.Fatal(err)
	}
	if d := refsearch.Diff(got.Bytes(), want); d != "" {
		t.Fatalf("campaign result differs from the unsharded search: %s", d)
	}

	slow.mu.Lock()
	defer slow.mu.Unlock()
	if len(slow.commits) != 6 {
		t.Fatalf("saw %d commits, want 6 (no chunk searched twice)", len(slow.commits))
	}
	// The first commit (5 s) overlaps the next chunks' searches (each
	// chunk is leased when the one before has its last block cut), so
	// other leases are renewed and later chunks leased during it.
	w := slow.commits[0]
	inside := func(es []event) (n int) {
		for _, e := range es {
			if e.chunk != w.chunk && e.at.After(w.start) && e.at.Before(w.end) {
				n++
			}
		}
		return n
	}
	if n := inside(slow.renewals); n == 0 {
		t.Errorf("no other lease was renewed during the first commit (%v, %v long; renewals at %v)", w.chunk, w.end.Sub(w.start), slow.renewals)
	}
	if n := inside(slow.leases); n == 0 {
		t.Errorf("no chunk was leased during the first commit (%v, %v long; leases at %v)", w.chunk, w.end.Sub(w.start), slow.leases)
	}
}
