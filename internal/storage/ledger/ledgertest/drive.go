// Package ledgertest drives a campaign's ledger as a partition would, for
// tests of what reads it (reports, status).
package ledgertest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// Drive leases every chunk of the campaign at st as holder until none is
// left: a chunk for which fail returns a reason fails with it (the ledger
// retries, splits and gives up as it does), the others commit a one-line
// result.
func Drive(t testing.TB, st objstore.Store, holder string, fail func(ledger.Range) *ledger.FailureReason) {
	t.Helper()
	ctx := context.Background()
	l, err := ledger.Open(ctx, st, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for {
		ls, err := l.Acquire(ctx, holder)
		if errors.Is(err, ledger.ErrNoChunk) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if reason := fail(ls.Range); reason != nil {
			if err := ls.Fail(ctx, *reason); err != nil {
				t.Fatal(err)
			}
			continue
		}
		data := fmt.Sprintf("results of %s\n", ls.Range)
		if err := ls.Commit(ctx, strings.NewReader(data), int64(len(data))); err != nil {
			t.Fatal(err)
		}
	}
}
