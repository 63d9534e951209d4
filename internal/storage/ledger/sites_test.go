package ledger

import (
	"context"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// Two sites work one campaign: the status tells their commits, letters,
// running chunks, rates and the time their committed chunks took apart;
// work recorded without a site is shown unnamed.
func TestStatusBySite(t *testing.T) {
	st, err := objstore.NewDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	clk := newClock()
	chunks := []Chunk{{0, 2, 100}, {2, 4, 300}, {4, 6, 50}, {6, 8, 10}}
	hpc := campaign(t, st, chunks, Options{Now: clk.Now, Site: "hpc-a"})
	cloud := open(t, st, Options{Now: clk.Now, Site: "cloud"})
	bare := open(t, st, Options{Now: clk.Now})

	a := acquire(t, hpc, "a") // 0-2
	clk.Advance(10 * time.Second)
	if err := commit(t, a); err != nil {
		t.Fatal(err)
	}
	for range DefaultMaxAttempts { // 2-4 fails until it is split
		if err := acquire(t, cloud, "b").Fail(context.Background(), FailureReason{Message: "too big"}); err != nil {
			t.Fatal(err)
		}
	}
	b1 := acquire(t, cloud, "b") // 2-3: half of 300 letters
	if b1.Range != (Range{2, 3}) {
		t.Fatalf("leased %s, want 2-3", b1.Range)
	}
	clk.Advance(5 * time.Second)
	if err := commit(t, b1); err != nil {
		t.Fatal(err)
	}
	acquire(t, hpc, "a")  // 3-4, running
	acquire(t, bare, "c") // 4-6, running

	s, err := hpc.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]SiteStatus{
		"hpc-a":     {Name: "hpc-a", ChunksCommitted: 1, QueriesDone: 2, LettersDone: 100, Running: 1, Attempts: 2, LettersPerSecond: 10, ChunkSeconds: 10},
		"cloud":     {Name: "cloud", ChunksCommitted: 1, QueriesDone: 1, LettersDone: 150, Running: 0, Attempts: 4, LettersPerSecond: 30, ChunkSeconds: 5},
		UnnamedSite: {Name: UnnamedSite, Running: 1, Attempts: 1},
	}
	if len(s.Sites) != len(want) {
		t.Fatalf("sites %+v, want %d", s.Sites, len(want))
	}
	for i, got := range s.Sites {
		if i > 0 && s.Sites[i-1].Name >= got.Name {
			t.Errorf("sites not sorted by name: %+v", s.Sites)
		}
		w := want[got.Name]
		got.FirstStarted, got.LastCommitted = time.Time{}, time.Time{}
		if got != w {
			t.Errorf("site %s: %+v, want %+v", w.Name, got, w)
		}
	}
}
