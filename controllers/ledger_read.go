package controllers

import (
	"context"
	"errors"
	"reflect"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/internal/storage/runrecord"
)

// ledgerRead is what one read of a running campaign's store found: its
// status, whether its plan changed, and once every chunk is decided its
// assembled result and run records. The poller keeps the last one per
// campaign; reconciles read it and never change it.
type ledgerRead struct {
	// at is when the read began: what it found was in the store then.
	at     time.Time
	status *ledger.Status
	// version names what status was read from (the summary.json ETag, or
	// the poller's read), "" when nothing tells two reads apart: a
	// version's problems are reported once.
	version string
	err     error // the status could not be read
	// planErr is the plan check's: ErrPlanChanged, or the store's (which
	// the status read reports better).
	planErr error
	asm     *ledger.AssembledResult
	asmErr  error
	// runs are the partitions' run records, read once the result is
	// assembled (the campaign's cost).
	runs    []runrecord.RunRecord
	runsErr error
	// retried: the reconcile opened the store again and read it once
	// more; the error is the store's, not stale credentials'.
	retried bool
}

// readLedgerState reads the status from the summary its partitions keep
// (one small GET), listing the chunks only when there is none fresh
// (partitions that predate it, or none running for a while), and checks
// the plan side by side: a read waits for the slower, not for both.
func readLedgerState(ctx context.Context, l *ledger.Ledger, st objstore.Store, maxAge time.Duration) *ledgerRead {
	planChecked := make(chan error, 1)
	go func() { planChecked <- l.CheckPlan(ctx) }()
	rd := &ledgerRead{at: time.Now()}
	sum, err := l.ReadSummary(ctx, maxAge)
	switch {
	case err == nil && sum != nil:
		rd.status, rd.version = sum.Status, sum.ETag
	default:
		rd.status, rd.err = l.Status(ctx)
	}
	rd.planErr = <-planChecked
	if rd.err != nil || !rd.status.Complete {
		return rd
	}
	rd.asm, rd.asmErr = l.AssembledResult(ctx)
	if rd.asm != nil && st != nil {
		rd.runs, rd.runsErr = runrecord.ReadRuns(ctx, st)
	}
	return rd
}

// planChanged: the plan check found plan.json edited or deleted.
func (rd *ledgerRead) planChanged() bool { return errors.Is(rd.planErr, ledger.ErrPlanChanged) }

// same says whether two reads found the same: when they do, the poller
// does not wake the campaign's reconcile.
func (rd *ledgerRead) same(o *ledgerRead) bool {
	return o != nil && errText(rd.err) == errText(o.err) && rd.planChanged() == o.planChanged() &&
		errText(rd.asmErr) == errText(o.asmErr) && errText(rd.runsErr) == errText(o.runsErr) &&
		reflect.DeepEqual(rd.status, o.status) && reflect.DeepEqual(rd.asm, o.asm) && reflect.DeepEqual(rd.runs, o.runs)
}

// needsAttention: an error the reconcile acts on (opening the store
// anew, a Degraded condition, failing the campaign).
func (rd *ledgerRead) needsAttention() bool {
	return rd.err != nil || rd.planChanged() || rd.asmErr != nil
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
