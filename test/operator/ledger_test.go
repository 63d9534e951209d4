package operator

import (
	"context"
	"errors"
	"fmt"
	"github.com/blastfleet/blastfleet/internal/plan/search"
	"strings"

	"github.com/blastfleet/blastfleet/internal/storage/ledger"
)

// writePlan writes the plan the planning Job would write: queries in
// chunks of two.
func (h *harness) writePlan(campaign, db string, queries int) *ledger.Ledger {
	h.t.Helper()
	return h.writePlanLetters(campaign, db, queries, 0)
}

// writePlanLetters is writePlan with letters query letters per chunk.
func (h *harness) writePlanLetters(campaign, db string, queries int, letters int64) *ledger.Ledger {
	h.t.Helper()
	ctx := context.Background()
	st := h.store("campaigns/" + h.ns + "/" + campaign)
	chunks := ledger.ChunkByQueries(queries, 2)
	for i := range chunks {
		chunks[i].Letters = letters
	}
	plan := &ledger.Plan{
		Name:     campaign,
		Queries:  ledger.Queries{Location: fmt.Sprintf("s3://%s/queries/%s.fa", bucket, campaign), Count: queries, Letters: letters * int64(len(chunks))},
		Database: ledger.Database{Location: fmt.Sprintf("s3://%s/databases/%s/%s", bucket, h.ns, db), Name: db, Type: "prot"},
		Search:   search.MustParse(search.Request{Program: "blastp", Outfmt: "6", MaxTargetSeqs: 500, TopHits: "auto"}),
		Chunks:   chunks,
		Policy:   ledger.Policy{MaxAttempts: 3, LeaseSeconds: 30, RenewSeconds: 6, SkewSeconds: 1},
	}
	if err := ledger.WritePlan(ctx, st, plan); err != nil {
		h.t.Fatal(err)
	}
	l, err := ledger.Open(ctx, st, ledger.Options{})
	if err != nil {
		h.t.Fatal(err)
	}
	return l
}

// commitAll commits every chunk as a partition would, each result one
// line per query.
func (h *harness) commitAll(l *ledger.Ledger) { h.settleAll(l, nil) }

// settleAll decides every chunk as a partition would: the attempts fail
// gives a reason for fail, the others commit one line per query.
func (h *harness) settleAll(l *ledger.Ledger, fail func(ledger.Range) *ledger.FailureReason) {
	h.t.Helper()
	h.settle(l, -1, fail)
}

// commitChunks commits the next n chunks (fewer if fewer are left).
func (h *harness) commitChunks(l *ledger.Ledger, n int) {
	h.t.Helper()
	h.settle(l, n, nil)
}

// settle decides up to n chunks (all, if n < 0) as settleAll says.
func (h *harness) settle(l *ledger.Ledger, n int, fail func(ledger.Range) *ledger.FailureReason) {
	h.t.Helper()
	ctx := context.Background()
	for ; n != 0; n-- {
		lease, err := l.Acquire(ctx, "test-partition")
		if errors.Is(err, ledger.ErrNoChunk) {
			return
		}
		if err != nil {
			h.t.Fatal(err)
		}
		if fail != nil {
			if reason := fail(lease.Range); reason != nil {
				if err := lease.Fail(ctx, *reason); err != nil {
					h.t.Fatal(err)
				}
				continue
			}
		}
		h.commitLease(lease)
	}
}

// commitLease commits lease's chunk, one line per query.
func (h *harness) commitLease(lease *ledger.Lease) {
	h.t.Helper()
	var b strings.Builder
	for q := lease.Range.First; q < lease.Range.End; q++ {
		fmt.Fprintf(&b, "q%d\ts1\t1e-10\t50\n", q)
	}
	if err := lease.Commit(context.Background(), strings.NewReader(b.String()), int64(b.Len())); err != nil {
		h.t.Fatal(err)
	}
}

// putQueries uploads a campaign's queries object.
func (h *harness) putQueries(campaign string) {
	h.t.Helper()
	data := ">q0\nMKV\n>q1\nMKV\n>q2\nMKV\n"
	if err := h.store("").Put(context.Background(), "queries/"+campaign+".fa", strings.NewReader(data), int64(len(data))); err != nil {
		h.t.Fatal(err)
	}
}

// ledgerOf opens a campaign's ledger.
func (h *harness) ledgerOf(campaign string) *ledger.Ledger {
	h.t.Helper()
	l, err := ledger.Open(context.Background(), h.store("campaigns/"+h.ns+"/"+campaign), ledger.Options{})
	if err != nil {
		h.t.Fatal(err)
	}
	return l
}
