package ledger

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// TestPoisonQuery: every attempt on a range holding query 3 fails; the
// chunk is split down to query 3, which ends failed with its reason,
// while every other query is committed.
func TestPoisonQuery(t *testing.T) {
	forStores(t, func(t *testing.T, fresh func() objstore.Store) {
		ctx := context.Background()
		st := fresh()
		l := campaign(t, st, []Chunk{{0, 5, 0}}, Options{})
		reason := FailureReason{Message: "blastp crashed", ExitCode: 139, Signal: "SIGSEGV", StderrTail: "Segmentation fault"}
		drain(t, l, "p", func(r Range) *FailureReason {
			if r.First <= 3 && 3 < r.End {
				return &reason
			}
			return nil
		})
		s, err := ReadStatus(ctx, st)
		if err != nil {
			t.Fatal(err)
		}
		if !s.Complete || s.QueriesDone != 4 || s.QueriesFailed != 1 || s.Failed != 1 || s.Committed != 3 || s.Chunks != 4 {
			t.Errorf("status %+v", s)
		}
		if want := []FailedQuery{{Query: 3, Reason: reason}}; !reflect.DeepEqual(s.FailedQueries, want) {
			t.Errorf("failed queries %+v, want %+v", s.FailedQueries, want)
		}
		// [0,5), [2,5), [3,5), [3,4): three failed attempts each.
		if s.Attempts != 4*3+3 {
			t.Errorf("attempts %d, want 15", s.Attempts)
		}
		want := string(result(Range{0, 2})) + string(result(Range{2, 3})) + string(result(Range{4, 5}))
		var buf bytes.Buffer
		if err := StreamResults(ctx, st, &buf); err != nil || buf.String() != want {
			t.Errorf("StreamResults = %q, %v; want %q", buf.String(), err, want)
		}
		key, err := l.Assemble(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := read(t, st, key); got != want {
			t.Errorf("assembled %q, want %q", got, want)
		}
		if key2, err := open(t, st, Options{}).Assemble(ctx); err != nil || key2 != key {
			t.Errorf("second Assemble = %q, %v", key2, err)
		}
	})
}

func read(t *testing.T, st objstore.Store, key string) string {
	t.Helper()
	b, _, err := st.GetBytes(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCorruption: a result with the wrong bytes, a result of the wrong
// size and an unparseable commit marker each make their chunk redone.
func TestCorruption(t *testing.T) {
	forStores(t, func(t *testing.T, fresh func() objstore.Store) {
		ctx := context.Background()
		st := fresh()
		l := campaign(t, st, ChunkByQueries(3, 1), Options{})
		drain(t, l, "p", never)
		keys := map[int]string{}
		for i := range 3 {
			r := Range{i, i + 1}
			if rec, _ := (*Plan)(nil).parseOutcome(r, []byte(read(t, st, r.dir()+commitName))); rec != nil {
				keys[i] = rec.ResultKey
			}
		}
		same := bytes.Repeat([]byte("x"), len(result(Range{0, 1})))
		st.Put(ctx, keys[0], bytes.NewReader(same), int64(len(same))) // same size, wrong bytes
		st.Put(ctx, keys[1], strings.NewReader("short"), 5)           // wrong size
		st.Put(ctx, Range{2, 3}.dir()+commitName, strings.NewReader("{not json"), 9)

		r := open(t, st, Options{})
		s, err := r.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// Status sees the size and the marker; the hash needs the bytes.
		if s.Committed != 1 || len(s.Problems) != 2 || !reflect.DeepEqual(s.Missing, []Range{{1, 2}, {2, 3}}) {
			t.Errorf("status after corruption %+v", s)
		}
		var buf bytes.Buffer
		if err := r.StreamResults(ctx, &buf); !errors.Is(err, ErrIncomplete) {
			t.Errorf("StreamResults = %v, want ErrIncomplete", err)
		}
		drain(t, r, "q", never) // still incomplete: hashes are checked below
		if err := r.StreamResults(ctx, &buf); !errors.Is(err, ErrIncomplete) || !strings.Contains(err.Error(), "sha256") {
			t.Errorf("StreamResults over a bad hash = %v, want a voiding ErrIncomplete", err)
		}
		drain(t, r, "q", never)
		buf.Reset()
		if err := r.StreamResults(ctx, &buf); err != nil {
			t.Fatal(err)
		}
		want := string(result(Range{0, 1})) + string(result(Range{1, 2})) + string(result(Range{2, 3}))
		if buf.String() != want {
			t.Errorf("results %q, want %q", buf.String(), want)
		}
		s, _ = r.Status(ctx)
		if !s.Complete || s.Attempts != 6 {
			t.Errorf("final status %+v", s)
		}
	})
}

// TestStatusAndIncomplete: the numbers while a campaign is under way, and
// the refusal of results until it is done.
func TestStatusAndIncomplete(t *testing.T) {
	forStores(t, func(t *testing.T, fresh func() objstore.Store) {
		ctx := context.Background()
		st := fresh()
		l := campaign(t, st, ChunkByQueries(8, 2), Options{})
		l1 := acquire(t, l, "p")
		if err := commit(t, l1); err != nil {
			t.Fatal(err)
		}
		l2 := acquire(t, l, "p")
		if err := l2.Fail(ctx, FailureReason{Message: "oom", ExitCode: 137}); err != nil {
			t.Fatal(err)
		}
		l3 := acquire(t, l, "p") // the failed chunk again
		if l3.Range != l2.Range || l3.Attempt != 2 {
			t.Fatalf("retry got %s attempt %d", l3.Range, l3.Attempt)
		}
		s, err := ReadStatus(ctx, st)
		if err != nil {
			t.Fatal(err)
		}
		want := Status{Name: "test", Chunks: 4, Committed: 1, Leased: 1, Pending: 2, Attempts: 3, Retries: 1,
			FailedAttempts: FailureKinds{ExitCode: 1}, Queries: 8, QueriesDone: 2, Missing: []Range{{2, 4}, {4, 6}, {6, 8}}}
		// Sites: TestStatusBySite; here only that the one unnamed site has it all.
		if len(s.Sites) != 1 || s.Sites[0].Name != UnnamedSite || s.Sites[0].QueriesDone != 2 || s.Sites[0].Running != 1 {
			t.Errorf("sites %+v", s.Sites)
		}
		s.Sites = nil
		if !reflect.DeepEqual(*s, want) {
			t.Errorf("status\n got %+v\nwant %+v", *s, want)
		}
		var buf bytes.Buffer
		var inc *IncompleteError
		if err := StreamResults(ctx, st, &buf); !errors.As(err, &inc) || len(inc.Missing) != 3 || buf.Len() != 0 {
			t.Errorf("StreamResults on an incomplete campaign = %v (%d bytes written)", err, buf.Len())
		}
		if _, err := l.Assemble(ctx); !errors.Is(err, ErrIncomplete) {
			t.Errorf("Assemble = %v, want ErrIncomplete", err)
		}
		if _, err := st.Stat(ctx, ResultKey); !errors.Is(err, objstore.ErrNotExist) {
			t.Errorf("result exists before completion: %v", err)
		}
	})
}

// TestLateCommitAfterSplit: a holder paused past its lease finishes after
// the chunk ran out of attempts (every holder stalled: abandoned) and was
// split; its commit must lose, or
// the chunk's queries would be committed twice.
func TestLateCommitAfterSplit(t *testing.T) {
	forStores(t, func(t *testing.T, fresh func() objstore.Store) {
		ctx := context.Background()
		st := fresh()
		clk := newClock()
		l := campaign(t, st, []Chunk{{0, 2, 0}}, Options{Now: clk.Now})
		var slow *Lease
		for i := range DefaultMaxAbandoned {
			ls := acquire(t, l, "p")
			if ls.Range != (Range{0, 2}) || ls.Attempt != i+1 {
				t.Fatalf("got %s attempt %d", ls.Range, ls.Attempt)
			}
			slow = ls
			clk.Advance(time.Hour) // every holder stalls
		}
		ls := acquire(t, l, "p")
		if ls.Range != (Range{0, 1}) {
			t.Fatalf("after %d abandoned attempts got %s, want the split child [0,1)", DefaultMaxAbandoned, ls.Range)
		}
		if err := commit(t, slow); !errors.Is(err, ErrAlreadyCommitted) {
			t.Errorf("commit of the split parent = %v, want ErrAlreadyCommitted", err)
		}
		if err := commit(t, ls); err != nil {
			t.Fatal(err)
		}
		drain(t, l, "p", never)
		var buf bytes.Buffer
		if err := l.StreamResults(ctx, &buf); err != nil || buf.String() != string(result(Range{0, 1}))+string(result(Range{1, 2})) {
			t.Errorf("results %q, %v", buf.String(), err)
		}
	})
}
