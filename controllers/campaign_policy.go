package controllers

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/operator/policy"
)

// policyViolation is what the operator's policy refuses of the pods the
// campaign would run (planning Job and partitions): their image and
// placement.
func (run *campaignRun) policyViolation() error {
	p := run.c.Spec.Partitions
	return errors.Join(
		run.r.Policy.Image("spec.partitions.image", p.Image, run.r.WorkerImage),
		run.r.Policy.Placement("spec.partitions", policy.Placement{
			PriorityClassName: p.PriorityClassName, NodeSelector: p.NodeSelector, Tolerations: p.Tolerations,
		}),
		run.r.Policy.ServiceAccount("spec.partitions.serviceAccountName", p.ServiceAccountName),
	)
}

// checkStores applies the policy to the stores the campaign's pods reach
// and the operator does not open itself: the queries' own store, the
// database's and its Ready replicas' (a Secret may have lost its label
// since it was sharded or copied). A refusal, or a Secret that is
// missing, waits like the output's.
func (run *campaignRun) checkStores(ctx context.Context) (bool, error) {
	c := run.c
	check := func(field string, st v1alpha1.ObjectStorage) error {
		return run.stores.CheckAccess(ctx, c.Namespace, field, st)
	}
	err := check("BlastDatabase "+run.db.Name+" spec.storage", run.db.Spec.Storage)
	for i, r := range run.db.Spec.Replicas {
		if err == nil && replicaReady(run.db, r) {
			err = check(fmt.Sprintf("BlastDatabase %s spec.replicas[%d].storage", run.db.Name, i), r.Storage)
		}
	}
	if q := c.Spec.Queries.Storage; err == nil && q != nil {
		err = check("spec.queries.storage", *q)
	}
	if err == nil {
		return true, nil
	}
	return run.waitStore("storage", err)
}

// checkPolicy runs before partitions are created or replaced. The spec's
// partitions may change while the campaign runs, so a campaign admitted
// earlier can be refused now: it then creates nothing more, and what is
// done stays (partitions already running go on, the ledger keeps every
// chunk) until the spec or the policy is fixed.
func (run *campaignRun) checkPolicy(context.Context) (bool, error) {
	if run.c.Spec.Suspend {
		return true, nil // suspending creates nothing
	}
	if err := run.policyViolation(); err != nil {
		return run.refuse(err)
	}
	return true, nil
}

// refuse leaves the campaign waiting on a policy violation.
func (run *campaignRun) refuse(err error) (bool, error) {
	msg := "the operator's policy refuses the campaign's pods; nothing is created until the spec or the policy changes: " + err.Error()
	run.warnOnce(policy.ReasonViolation, msg)
	active := run.activePartitions()
	if active == 0 {
		return run.wait(v1alpha1.CampaignPending, policy.ReasonViolation, msg)
	}
	ok, werr := run.wait(v1alpha1.CampaignRunning, policy.ReasonViolation, msg)
	run.setCondition(v1alpha1.ConditionProgressing, true, "Running", fmt.Sprintf("%d partitions created earlier keep running; %s", active, msg))
	return ok, werr
}

// waitStorage waits on object storage that could not be opened. A
// refusal by the policy (the endpoint, or a Secret without the opt-in
// label) is also told as an event.
func (run *campaignRun) waitStorage(err error) (bool, error) {
	return run.waitStore("spec.output", err)
}

// waitStore is waitStorage for the store of field.
func (run *campaignRun) waitStore(field string, err error) (bool, error) {
	// What is fixed while it waits (a Secret created or labelled, a key
	// rotated) is read anew at the next reconcile, not a minute later.
	run.r.forgetSecrets(run.c.Namespace)
	reason, msg := storageReason(err), field+": "+err.Error()
	if policy.IsRefusal(reason) {
		run.warnOnce(reason, msg)
	} else {
		run.storeFailed = true
	}
	return run.wait(v1alpha1.CampaignPending, reason, msg)
}

// warnOnce records a warning unless the campaign's Ready condition
// already said the same, so a campaign waiting on a refusal does not
// repeat it at every poll.
func (run *campaignRun) warnOnce(reason, msg string) {
	if c := meta.FindStatusCondition(run.before.Conditions, v1alpha1.ConditionReady); c != nil && c.Reason == reason && c.Message == truncate(msg, 32*1024) {
		return
	}
	run.warn(reason, "Refuse", msg)
}
