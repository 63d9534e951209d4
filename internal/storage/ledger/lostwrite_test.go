package ledger

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// losingStore acknowledges the creates of keys ending in suffix without
// storing them, times times, as a store that loses acknowledged writes.
type losingStore struct {
	objstore.Store
	mu     sync.Mutex
	suffix string
	times  int
	lost   int
}

func (s *losingStore) PutIfAbsent(ctx context.Context, key string, data []byte) (string, error) {
	s.mu.Lock()
	lose := strings.HasSuffix(key, s.suffix) && s.lost < s.times
	if lose {
		s.lost++
	}
	s.mu.Unlock()
	if lose {
		sum := md5.Sum(data)
		return hex.EncodeToString(sum[:]), nil
	}
	return s.Store.PutIfAbsent(ctx, key, data)
}

func losing(t *testing.T, suffix string, times int) *losingStore {
	t.Helper()
	st, err := objstore.NewDir(filepath.Join(t.TempDir(), "c"))
	if err != nil {
		t.Fatal(err)
	}
	return &losingStore{Store: st, suffix: suffix, times: times}
}

// TestLostCommitMarkerWrittenAgain: the store acknowledges a chunk's
// commit marker and loses it. The commit finds out by reading it back and
// writes it again, so the chunk is committed once and never leased again
// (it was searched again before, and committed twice by the logs).
func TestLostCommitMarkerWrittenAgain(t *testing.T) {
	st := losing(t, "/"+commitName, 2)
	l := campaign(t, st, []Chunk{{First: 0, End: 2}, {First: 2, End: 4}}, Options{})
	first := acquire(t, l, "a")
	if err := commit(t, first); err != nil {
		t.Fatalf("commit whose marker the store lost: %v", err)
	}
	next := acquire(t, l, "a")
	if next.Range != (Range{2, 4}) {
		t.Fatalf("after committing %s the next lease is %s: its commit marker was lost and the chunk is undecided", first.Range, next.Range)
	}
	if st.lost != 2 {
		t.Fatalf("the store lost %d commit markers, want 2", st.lost)
	}
	if err := commit(t, next); err != nil {
		t.Fatal(err)
	}
	s, err := l.Status(context.Background())
	if err != nil || !s.Complete || s.Committed != 2 || s.Attempts != 2 {
		t.Fatalf("status %+v, %v: want complete, 2 chunks committed by 2 attempts", s, err)
	}
}

// TestLostCommitMarkerEveryTime: a store that never keeps the marker
// fails the commit instead of reporting it done.
func TestLostCommitMarkerEveryTime(t *testing.T) {
	st := losing(t, "/"+commitName, 1000)
	l := campaign(t, st, []Chunk{{First: 0, End: 2}}, Options{})
	if err := commit(t, acquire(t, l, "a")); err == nil || !strings.Contains(err.Error(), "kept none") {
		t.Fatalf("commit on a store that keeps no marker: %v, want an error", err)
	}
}

// TestLostAssembledMarker: the store acknowledges assembled.json and
// loses it. Assemble must not report the result done without its
// marker (it did, and the campaign ended with no record of its
// result's SHA-256); assembling again writes it.
func TestLostAssembledMarker(t *testing.T) {
	st := losing(t, assembledKey, 1)
	l := campaign(t, st, []Chunk{{First: 0, End: 2}, {First: 2, End: 4}}, Options{})
	drain(t, l, "a", never)
	ctx := context.Background()
	if _, err := l.Assemble(ctx); err == nil || !strings.Contains(err.Error(), "does not hold it") {
		t.Fatalf("Assemble with its marker lost: %v, want an error saying so", err)
	}
	if done, err := l.Assembled(ctx); err != nil || done {
		t.Fatalf("Assembled = %v, %v after the marker was lost", done, err)
	}
	if _, err := l.Assemble(ctx); err != nil {
		t.Fatalf("assembling again: %v", err)
	}
	asm, err := l.AssembledResult(ctx)
	if err != nil || asm == nil || asm.SHA256 == "" {
		t.Fatalf("assembled record %+v, %v", asm, err)
	}
	var b strings.Builder
	if err := l.StreamResults(ctx, &b); err != nil || b.String() != "result [0,2)\nresult [2,4)\n" {
		t.Fatalf("results %q, %v", b.String(), err)
	}
}

// TestCheckStoreSurvivesLostProbe: a store that loses the probe's first
// create is no store ignoring If-None-Match (it was refused as one, and
// a partition started then failed); the probe is tried again.
func TestCheckStoreSurvivesLostProbe(t *testing.T) {
	st := losing(t, ".json", 1)
	if err := CheckStore(context.Background(), st); err != nil {
		t.Fatalf("CheckStore on a store that lost one write: %v", err)
	}
	if st.lost != 1 {
		t.Fatalf("the store lost %d probes, want 1", st.lost)
	}
	always := losing(t, ".json", 1000)
	if err := CheckStore(context.Background(), always); err == nil || errors.Is(err, ErrStoreUnsafe) {
		t.Fatalf("CheckStore on a store that keeps no write: %v, want an error that is not ErrStoreUnsafe", err)
	}
}
