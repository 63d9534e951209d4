package ledger

import (
	"context"
	"testing"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// TestRequestCounts measures the ledger's object-store requests per step
// of a chunk's life and keeps them from growing unnoticed.
func TestRequestCounts(t *testing.T) {
	forStores(t, func(t *testing.T, fresh func() objstore.Store) {
		ctx := context.Background()
		cs := NewCountingStore(fresh())
		l := campaign(t, cs, ChunkByQueries(100, 1), Options{})
		step := func(name string, limit int64, f func()) {
			t.Helper()
			cs.Reset()
			f()
			t.Logf("%-28s %2d requests: %s", name, cs.Total(), cs)
			if cs.Total() > limit {
				t.Errorf("%s took %d requests, want at most %d", name, cs.Total(), limit)
			}
		}
		var ls *Lease
		step("acquire (fresh campaign)", 4, func() { ls = acquire(t, l, "p") })
		step("renew", 1, func() {
			if err := ls.Renew(ctx); err != nil {
				t.Fatal(err)
			}
		})
		// The commit marker is read back (a store may lose a write it
		// acknowledged): one GET more than the write alone.
		step("commit (incl. release)", 5, func() {
			if err := commit(t, ls); err != nil {
				t.Fatal(err)
			}
		})
		for range 40 {
			if err := commit(t, acquire(t, l, "p")); err != nil {
				t.Fatal(err)
			}
		}
		step("acquire (41 committed)", 4, func() { ls = acquire(t, l, "p") })
		step("fail (incl. release)", 3, func() {
			if err := ls.Fail(ctx, FailureReason{Message: "x"}); err != nil {
				t.Fatal(err)
			}
		})
		step("status (warm ledger)", 2, func() {
			if _, err := l.Status(ctx); err != nil {
				t.Fatal(err)
			}
		})
		step("status (cold, 41 committed)", 200, func() {
			if _, err := ReadStatus(ctx, cs); err != nil {
				t.Fatal(err)
			}
		})
	})
}
