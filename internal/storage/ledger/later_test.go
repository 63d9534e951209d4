package ledger

import (
	"context"
	"slices"
	"testing"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// TestLeaseLater: a lease says how many undecided chunks follow it, so a
// partition knows when it holds one of the campaign's last.
func TestLeaseLater(t *testing.T) {
	forStores(t, func(t *testing.T, fresh func() objstore.Store) {
		ctx := context.Background()
		st := fresh()
		l := campaign(t, st, ChunkByQueries(8, 2), Options{})
		var later []int
		for range 4 {
			ls := acquire(t, l, "A")
			later = append(later, ls.Later)
			if err := commit(t, ls); err != nil {
				t.Fatal(err)
			}
		}
		if want := []int{3, 2, 1, 0}; !slices.Equal(later, want) {
			t.Errorf("Later of successive leases = %v, want %v", later, want)
		}
		if _, err := l.Acquire(ctx, "A"); err != ErrNoChunk {
			t.Errorf("Acquire after all committed: %v, want ErrNoChunk", err)
		}
	})
}
