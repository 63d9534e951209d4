package ledger

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// TestAcquireRace: holders, each with its own Ledger as separate
// partitions would have, drain 20 chunks at once; no chunk is ever held by
// two, and each is committed exactly once.
func TestAcquireRace(t *testing.T) {
	forStores(t, func(t *testing.T, fresh func() objstore.Store) {
		ctx := context.Background()
		st := fresh()
		campaign(t, st, ChunkByQueries(20, 1), Options{})
		var mu sync.Mutex
		holding := map[Range]string{}
		committed := map[Range]string{}
		var wg sync.WaitGroup
		for h := range 4 {
			holder := fmt.Sprintf("p%d", h)
			l := open(t, st, Options{})
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					ls, err := l.Acquire(ctx, holder)
					if errors.Is(err, ErrNoChunk) {
						return
					}
					if errors.Is(err, ErrAllLeased) {
						time.Sleep(5 * time.Millisecond)
						continue
					}
					if err != nil {
						t.Errorf("%s: Acquire: %v", holder, err)
						return
					}
					mu.Lock()
					if other, ok := holding[ls.Range]; ok {
						t.Errorf("chunk %s leased by %s and %s at once", ls.Range, other, holder)
					}
					holding[ls.Range] = holder
					mu.Unlock()
					time.Sleep(time.Millisecond)
					mu.Lock()
					delete(holding, ls.Range)
					mu.Unlock()
					err = commit(t, ls)
					mu.Lock()
					if err == nil {
						if other, ok := committed[ls.Range]; ok {
							t.Errorf("chunk %s committed by %s and %s", ls.Range, other, holder)
						}
						committed[ls.Range] = holder
					} else if !errors.Is(err, ErrAlreadyCommitted) {
						t.Errorf("%s: Commit: %v", holder, err)
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if len(committed) != 20 {
			t.Errorf("%d chunks committed, want 20", len(committed))
		}
		s, err := ReadStatus(ctx, st)
		if err != nil {
			t.Fatal(err)
		}
		if !s.Complete || s.Committed != 20 || s.QueriesDone != 20 || s.Attempts != 20 {
			t.Errorf("status %+v", s)
		}
	})
}

// TestTakeover: an expired lease is taken over; the old holder's renew
// then fails and its late commit loses.
func TestTakeover(t *testing.T) {
	forStores(t, func(t *testing.T, fresh func() objstore.Store) {
		ctx := context.Background()
		st := fresh()
		clk := newClock()
		a := campaign(t, st, ChunkByQueries(4, 2), Options{Now: clk.Now})
		b := open(t, st, Options{Now: clk.Now})
		la := acquire(t, a, "a")
		if la.Range != (Range{0, 2}) || la.Attempt != 1 {
			t.Fatalf("a got %s attempt %d", la.Range, la.Attempt)
		}
		lb := acquire(t, b, "b")
		if lb.Range != (Range{2, 4}) {
			t.Fatalf("b got %s while a holds [0,2)", lb.Range)
		}
		if _, err := b.Acquire(ctx, "b"); !errors.Is(err, ErrAllLeased) {
			t.Fatalf("third Acquire = %v, want ErrAllLeased", err)
		} else {
			var al *AllLeasedError
			if !errors.As(err, &al) || !al.Until.Equal(clk.Now().Add(330*time.Second)) {
				t.Errorf("AllLeasedError = %v, want until lease+skew", err)
			}
		}
		// Past the lease but within the skew: still a's.
		clk.Advance(310 * time.Second)
		if err := lb.Renew(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Acquire(ctx, "b"); !errors.Is(err, ErrAllLeased) {
			t.Fatalf("Acquire within the skew = %v, want ErrAllLeased", err)
		}
		clk.Advance(30 * time.Second)
		lb2 := acquire(t, b, "b")
		if lb2.Range != la.Range || lb2.Attempt != 2 {
			t.Fatalf("takeover got %s attempt %d, want %s attempt 2", lb2.Range, lb2.Attempt, la.Range)
		}
		if err := la.Renew(ctx); !errors.Is(err, ErrLeaseLost) {
			t.Errorf("Renew after takeover = %v, want ErrLeaseLost", err)
		}
		if err := commit(t, lb2); err != nil {
			t.Fatal(err)
		}
		if err := commit(t, la); !errors.Is(err, ErrAlreadyCommitted) {
			t.Errorf("late commit = %v, want ErrAlreadyCommitted", err)
		}
		if _, err := st.Stat(ctx, la.ResultKey()); !errors.Is(err, objstore.ErrNotExist) {
			t.Errorf("loser's result still there: %v", err)
		}
		s, err := a.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// a's attempt was taken over without a failure: abandoned.
		if s.Committed != 1 || s.Leased != 1 || s.Attempts != 3 || s.Retries != 1 || s.Complete ||
			s.FailedAttempts != (FailureKinds{Abandoned: 1}) {
			t.Errorf("status %+v", s)
		}
	})
}

// TestCommitRace: two holders of the same chunk (one by takeover) commit
// at once; exactly one wins and the other's result is deleted.
func TestCommitRace(t *testing.T) {
	forStores(t, func(t *testing.T, fresh func() objstore.Store) {
		ctx := context.Background()
		st := fresh()
		clk := newClock()
		a := campaign(t, st, ChunkByQueries(1, 1), Options{Now: clk.Now})
		b := open(t, st, Options{Now: clk.Now})
		la := acquire(t, a, "a")
		// b sees a's lease, which then stays unchanged past lease + skew.
		if _, err := b.Acquire(ctx, "b"); !errors.Is(err, ErrAllLeased) {
			t.Fatalf("Acquire while a holds the chunk = %v, want ErrAllLeased", err)
		}
		clk.Advance(time.Hour)
		lb := acquire(t, b, "b")
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i, ls := range []*Lease{la, lb} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = commit(t, ls)
			}()
		}
		wg.Wait()
		wins := 0
		for i, err := range errs {
			switch {
			case err == nil:
				wins++
			case !errors.Is(err, ErrAlreadyCommitted):
				t.Errorf("commit %d: %v", i, err)
			}
		}
		if wins != 1 {
			t.Fatalf("%d commits won, want 1 (%v)", wins, errs)
		}
		infos, err := st.List(ctx, Range{0, 1}.dir()+resultPrefix)
		if err != nil || len(infos) != 1 {
			t.Errorf("results left: %+v (%v), want the winner's only", infos, err)
		}
	})
}
