package ledger

import (
	"context"
	"errors"
	"testing"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// TestMarkInvalid: once a partition records that BLAST+ refuses the search,
// no chunk is leased again, by anyone, and the status carries the first
// reason recorded.
func TestMarkInvalid(t *testing.T) {
	forStores(t, func(t *testing.T, fresh func() objstore.Store) {
		ctx := context.Background()
		st := fresh()
		campaign(t, st, ChunkByQueries(10, 2), Options{})
		a, b := open(t, st, Options{}), open(t, st, Options{})
		ls, err := a.Acquire(ctx, "A")
		if err != nil {
			t.Fatal(err)
		}
		first := FailureReason{Message: "BLAST+ refuses the search", ExitCode: 1, StderrTail: `Error: Argument "word_size". Illegal value, expected >=4`, Config: true}
		if err := ls.Fail(ctx, first); err != nil {
			t.Fatal(err)
		}
		if err := a.MarkInvalid(ctx, "A", first); err != nil {
			t.Fatal(err)
		}
		if err := b.MarkInvalid(ctx, "B", FailureReason{Message: "later", Config: true}); err != nil {
			t.Fatalf("a second mark: %v", err)
		}
		for _, l := range []*Ledger{a, b} {
			_, err := l.Acquire(ctx, "B")
			var ie *InvalidSearchError
			if !errors.Is(err, ErrInvalidSearch) || !errors.As(err, &ie) || ie.Reason.Message != first.Message {
				t.Errorf("Acquire after MarkInvalid: %v, want the first reason", err)
			}
		}
		s, err := b.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if s.Invalid == nil || s.Invalid.StderrTail != first.StderrTail || s.Attempts != 1 {
			t.Errorf("status: invalid %+v after %d attempts, want the first reason after 1", s.Invalid, s.Attempts)
		}
	})
}
