package controllers

import (
	"fmt"
	"time"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers/executor"
)

// replacementInput is what the replacement policy looks at: the
// campaign's partitions, its count and retry policy, and what the
// reconcile knows of its progress.
type replacementInput struct {
	parts  []partition
	count  int
	policy v1alpha1.RetryPolicy
	// used is the restarts spent so far (status.partitions.replaced).
	used int
	// ledgerRead: the ledger answered this reconcile, so a partition that
	// exited 0 while chunks remain can be told from one that finished.
	ledgerRead bool
	// complete: the ledger says every chunk is decided, so a partition
	// that exited 0 is done, not to be replaced.
	complete bool
	now      time.Time
}

// stepKind is what to do for one partition index.
type stepKind int

const (
	// stepCreate: no partition at the index yet.
	stepCreate stepKind = iota
	// stepReplace: create the next restart, then delete the old one.
	stepReplace
	// stepWait: the old one's backoff is not over yet.
	stepWait
)

// partitionStep is one index's step; create and replace steps run in
// order, each on the budget the earlier ones left.
type partitionStep struct {
	kind    stepKind
	index   int
	restart int       // of the partition to create
	old     partition // the one replaced or waited for
	wait    time.Duration
	used    int // restarts spent once this replacement is made
}

// replacementPlan is what keeps one live partition per index below the
// count.
type replacementPlan struct {
	// remove are the partitions at or above the count.
	remove []partition
	steps  []partitionStep
	// exhausted counts the indexes whose partition ended and cannot be
	// replaced: the restart budget is spent.
	exhausted int
	// lastFailure describes the last ended partition looked at.
	lastFailure string
}

// planReplacements decides, from what was observed alone, which
// partitions to create, replace, wait for or remove.
func planReplacements(in replacementInput) replacementPlan {
	var plan replacementPlan
	for _, p := range in.parts {
		if p.index >= in.count {
			plan.remove = append(plan.remove, p)
		}
	}
	newest := latest(in.parts)
	budget := int(in.policy.MaxPartitionRestarts)
	used := in.used
	for i := 0; i < in.count; i++ {
		p, ok := newest[i]
		switch {
		case !ok:
			plan.steps = append(plan.steps, partitionStep{kind: stepCreate, index: i})
		case p.active():
			// Running or waiting for admission: nothing to do.
		case p.state.Phase == executor.Succeeded && (!in.ledgerRead || in.complete):
			// Partitions exit 0 when the campaign is done; confirm with
			// the ledger before replacing one, and replace none once
			// every chunk is decided (the others, or the assembly Job,
			// assemble the result).
		default: // Failed, or Succeeded while chunks remain
			plan.lastFailure = describeEnd(p)
			if used >= budget {
				plan.exhausted++
				continue
			}
			if wait := backoff(in.policy, p.restart+1) - in.now.Sub(p.state.FinishedAt); wait > 0 {
				plan.steps = append(plan.steps, partitionStep{kind: stepWait, index: i, old: p, wait: wait})
				continue
			}
			used++
			plan.steps = append(plan.steps, partitionStep{kind: stepReplace, index: i, restart: p.restart + 1, old: p, used: used})
		}
	}
	return plan
}

// describeEnd says how a partition ended, for events and conditions.
func describeEnd(p partition) string {
	return fmt.Sprintf("partition %s %s: %s %s", p.obj.GetName(), p.state.Phase, p.state.Reason, p.state.Message)
}

// backoff is the wait before a partition's restart-th replacement:
// backoffSeconds doubled per earlier failure of the same partition index,
// capped at maxBackoffSeconds.
func backoff(p v1alpha1.RetryPolicy, restart int) time.Duration {
	d := time.Duration(p.BackoffSeconds) * time.Second
	limit := time.Duration(p.MaxBackoffSeconds) * time.Second
	for i := 1; i < restart && d < limit; i++ {
		d *= 2
	}
	return min(d, limit)
}
