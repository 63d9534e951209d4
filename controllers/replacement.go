package controllers

import (
	"fmt"
	"time"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
)

// slotAction is what the replacement policy asks for one partition index.
type slotAction int

const (
	slotKeep      slotAction = iota // running, queued, or finished and waiting for the ledger's word
	slotCreate                      // no partition yet: create restart 0
	slotReplace                     // failed (or ended with chunks left): create the next restart now
	slotWait                        // replace it after its backoff
	slotExhausted                   // failed, and the restart budget is used up
)

// slotDecision is the policy's answer for one index: the action, and for
// slotReplace the restart to create, for slotWait how long to wait.
type slotDecision struct {
	action  slotAction
	restart int
	wait    time.Duration
	// failure describes the ended partition (slotReplace, slotWait,
	// slotExhausted), for events and conditions.
	failure string
}

// replacement is the partition replacement policy's input: what the
// campaign allows and what it has used.
type replacement struct {
	policy v1alpha1.RetryPolicy
	used   int  // restarts used so far (status.partitions.replaced)
	ledger bool // the ledger answered this reconcile
	now    time.Time
}

// decide is the policy for one index whose newest partition is p (ok:
// there is one). It never acts on a partition that exited 0 before the
// ledger confirms chunks remain: partitions exit 0 when the campaign is
// done.
func (r replacement) decide(p partition, ok bool) slotDecision {
	switch {
	case !ok:
		return slotDecision{action: slotCreate}
	case p.active():
		return slotDecision{action: slotKeep}
	case p.state.Phase == PartitionSucceeded && !r.ledger:
		return slotDecision{action: slotKeep}
	}
	d := slotDecision{failure: fmt.Sprintf("partition %s %s: %s %s", p.obj.GetName(), p.state.Phase, p.state.Reason, p.state.Message)}
	if r.used >= int(r.policy.MaxPartitionRestarts) {
		d.action = slotExhausted
		return d
	}
	if wait := backoff(r.policy, p.restart+1) - r.now.Sub(p.state.FinishedAt); wait > 0 {
		d.action, d.wait = slotWait, wait
		return d
	}
	d.action, d.restart = slotReplace, p.restart+1
	return d
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
