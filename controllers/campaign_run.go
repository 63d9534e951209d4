package controllers

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// campaignRun is one reconcile of one campaign: what it observed, the
// status it is building, and the events to emit once that status is
// written (jobset's pattern: gather, write once, then tell).
type campaignRun struct {
	r      *CampaignReconciler
	c      *v1alpha1.SearchCampaign
	before *v1alpha1.SearchCampaignStatus
	now    time.Time

	// stores is the reconciler's, reading Secrets through its cache once
	// the campaign runs.
	stores StoreOpener

	db     *v1alpha1.BlastDatabase
	loc    string
	store  objstore.Store
	ledger *ledger.Ledger
	status *ledger.Status // nil until read
	// read is the store read status came from; readCached: the
	// poller's, made before this reconcile.
	read       *ledgerRead
	readCached bool

	parts  []partition
	events []event
	// burstCount is the deadline's partition count, once decided.
	burstCount *int32

	requeue time.Duration
	// policyMade: the partitions' NetworkPolicy was made (or found) in this
	// reconcile, which may create every partition.
	policyMade bool
	// storeFailed: a store did not answer; the campaign is polled again
	// after its backoff.
	storeFailed bool
}

func newCampaignRun(r *CampaignReconciler, c *v1alpha1.SearchCampaign) *campaignRun {
	stores := r.Stores
	switch {
	case stores.Secrets == nil:
	case c.Status.Phase == v1alpha1.CampaignRunning:
		stores.Secrets = r.secretReader()
	default:
		// Not admitted yet: the policy's checks of its Secrets (a label
		// just removed) are made on what they are now, each read once.
		stores.Secrets = newCachedReader(stores.Secrets, time.Hour, nil)
	}
	return &campaignRun{r: r, c: c, before: c.Status.DeepCopy(), now: r.now(), stores: stores, loc: location(c.Spec.Output, c.Namespace, c.Name)}
}

// reconcile runs the phases in order; each returns false when the
// campaign cannot go further in this reconcile.
func (run *campaignRun) reconcile(ctx context.Context) error {
	run.c.Status.Location = run.loc
	if run.terminal() {
		defer observeStep("wind-down", time.Now())
		return run.windDownPartitions(ctx)
	}
	for _, p := range []struct {
		step string
		run  func(context.Context) (bool, error)
	}{
		{"database", run.resolveDatabase},
		{"storage", run.openStorage},
		{"stores", run.checkStores},
		{"plan", run.ensurePlan},
		{"ledger", run.readLedger},
		{"observe", run.observePartitions},
		{"finish", run.finishIfDone},
		{"deadline", run.checkDeadline},
		{"policy", run.checkPolicy},
		{"burst", run.decideBurst},
		{"partitions", run.reconcilePartitions},
	} {
		start := time.Now()
		ok, err := p.run(ctx)
		observeStep(p.step, start)
		if err != nil || !ok {
			return err
		}
	}
	return nil
}

func (run *campaignRun) terminal() bool {
	p := run.c.Status.Phase
	return p == v1alpha1.CampaignComplete || p == v1alpha1.CampaignFailed
}

// wait leaves the campaign in phase with a reason, to be looked at again
// after the poll interval (or sooner, on a watch event).
func (run *campaignRun) wait(phase v1alpha1.CampaignPhase, reason, msg string) (bool, error) {
	run.c.Status.Phase = phase
	run.setCondition(v1alpha1.ConditionReady, false, reason, msg)
	run.setCondition(v1alpha1.ConditionProgressing, phase == v1alpha1.CampaignPlanning, reason, msg)
	run.requeue = run.r.poll()
	return false, nil
}

// fail ends the campaign: Failed, with the reason and message users see
// in kubectl describe and the CLI.
func (run *campaignRun) fail(reason, msg string) (bool, error) {
	c := &run.c.Status
	c.Phase = v1alpha1.CampaignFailed
	if c.CompletionTime == nil {
		t := metav1.NewTime(run.now)
		c.CompletionTime = &t
	}
	run.setCondition(v1alpha1.ConditionFailed, true, reason, msg)
	run.setCondition(v1alpha1.ConditionProgressing, false, reason, msg)
	run.setCondition(v1alpha1.ConditionReady, false, reason, msg)
	run.warn(reason, "Fail", msg)
	return false, nil
}

func (run *campaignRun) setCondition(t string, status bool, reason, msg string) {
	s := metav1.ConditionFalse
	if status {
		s = metav1.ConditionTrue
	}
	run.setConditionStatus(t, s, reason, msg)
}

func (run *campaignRun) setConditionStatus(t string, s metav1.ConditionStatus, reason, msg string) {
	meta.SetStatusCondition(&run.c.Status.Conditions, metav1.Condition{
		Type: t, Status: s, Reason: reason, Message: truncate(msg, 32*1024), ObservedGeneration: run.c.Generation,
	})
}

func (run *campaignRun) normal(reason, action, note string) {
	run.events = append(run.events, event{reason: reason, action: action, note: note})
}

func (run *campaignRun) warn(reason, action, note string) {
	run.events = append(run.events, event{warning: true, reason: reason, action: action, note: note})
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}

// normalOnTransition records an event only when the campaign was not yet
// running, so a restarted operator re-reading the plan stays quiet.
func (run *campaignRun) normalOnTransition(reason, action, note string) {
	switch run.before.Phase {
	case "", v1alpha1.CampaignPending, v1alpha1.CampaignPlanning:
		run.normal(reason, action, note)
	}
}
