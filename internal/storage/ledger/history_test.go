package ledger

import (
	"context"
	"testing"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

func TestHistory(t *testing.T) {
	forStores(t, func(t *testing.T, fresh func() objstore.Store) {
		ctx := context.Background()
		l := campaign(t, fresh(), []Chunk{{First: 0, End: 2}, {First: 2, End: 4}, {First: 4, End: 6}}, Options{})
		a := acquire(t, l, "p1")
		if err := a.Fail(ctx, FailureReason{Message: "blastp failed", ExitCode: 3, StderrTail: "BLAST query/options error"}); err != nil {
			t.Fatal(err)
		}
		b := acquire(t, l, "p2")
		if err := commit(t, b); err != nil {
			t.Fatal(err)
		}
		h, err := l.History(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// The failed chunk is retried first: one chunk, two attempts.
		if len(h) != 1 || len(h[0].Attempts) != 2 {
			t.Fatalf("history %+v, want one chunk with two attempts", h)
		}
		first, second := h[0].Attempts[0], h[0].Attempts[1]
		if f := first.Failure; f == nil || f.ExitCode != 3 || f.StderrTail == "" || first.Holder != "p1" || first.StartedAt.IsZero() {
			t.Errorf("first attempt's failure not kept: %+v", first)
		}
		if second.Failure != nil || second.Holder != "p2" || second.Number != 2 {
			t.Errorf("second attempt: %+v", second)
		}
		c := acquire(t, l, "p3")
		if err := commit(t, c); err != nil {
			t.Fatal(err)
		}
		if h, err = l.History(ctx); err != nil || len(h) != 2 || h[0].Range.First > h[1].Range.First {
			t.Fatalf("history %+v (%v), want two chunks in query order", h, err)
		}
	})
}
