package controllers

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers/executor"
)

// partition is one observed partition object.
type partition struct {
	obj            client.Object
	index, restart int
	state          executor.State
}

func (p partition) active() bool {
	return p.state.Phase == executor.Queued || p.state.Phase == executor.Running
}

// observePartitions lists the campaign's partitions and counts them.
func (run *campaignRun) observePartitions(ctx context.Context) (bool, error) {
	parts, err := run.listPartitions(ctx)
	if err != nil {
		return false, err
	}
	run.parts = parts
	run.countPartitions()
	return true, nil
}

// indexCampaign indexes the cache's partitions by their campaign label:
// listing a campaign's partitions is then a lookup, not a scan of every
// MPIJob in the namespace with a label match (25 ms a reconcile at the
// median, with 8,000 MPIJobs, measured at 1,000 campaigns).
const indexCampaign = "blastfleet.io/campaign"

// campaignSelector selects a campaign's partitions in list: by the index
// from the cache, or by label from the API server for unstructured kinds
// (Argo's Workflows), which the manager's client does not cache.
func campaignSelector(list client.ObjectList, campaign string) client.ListOption {
	if _, ok := list.(*unstructured.UnstructuredList); ok {
		return client.MatchingLabels{LabelCampaign: campaign}
	}
	return client.MatchingFields{indexCampaign: campaign}
}

func campaignOf(o client.Object) []string {
	if c := o.GetLabels()[LabelCampaign]; c != "" {
		return []string{c}
	}
	return nil
}

func (run *campaignRun) listPartitions(ctx context.Context) ([]partition, error) {
	ex, err := run.r.executorFor(run.c)
	if err != nil {
		return nil, nil // no partition of a kind the API server lacks; createPartition says why
	}
	list := ex.NewList()
	if err := run.r.List(ctx, list, client.InNamespace(run.c.Namespace), campaignSelector(list, run.c.Name)); err != nil {
		return nil, fmt.Errorf("listing partitions: %w", err)
	}
	var parts []partition
	for _, o := range ex.Items(list) {
		if !metav1.IsControlledBy(o, run.c) {
			continue
		}
		i, r, ok := partitionOf(o.GetLabels())
		if !ok || !o.GetDeletionTimestamp().IsZero() {
			continue
		}
		parts = append(parts, partition{obj: o, index: i, restart: r, state: ex.State(o)})
	}
	sort.Slice(parts, func(a, b int) bool {
		if parts[a].index != parts[b].index {
			return parts[a].index < parts[b].index
		}
		return parts[a].restart < parts[b].restart
	})
	return parts, nil
}

func (run *campaignRun) countPartitions() {
	var n v1alpha1.PartitionCounts
	for _, p := range latest(run.parts) {
		switch p.state.Phase {
		case executor.Running:
			n.Running++
		case executor.Queued:
			n.Queued++
		case executor.Failed:
			n.Failed++
		}
		n.Replaced += int32(p.restart)
	}
	// Failed partitions are deleted once replaced and scaled-down ones
	// go, so the status remembers the count.
	n.Replaced = max(n.Replaced, run.before.Partitions.Replaced)
	n.Desired = run.desired()
	run.c.Status.Partitions = n
	run.c.Status.PartitionsRatio = fmt.Sprintf("%d/%d", n.Running, n.Desired)
}

// latest is each index's newest partition (highest restart).
func latest(parts []partition) map[int]partition {
	m := map[int]partition{}
	for _, p := range parts {
		if q, ok := m[p.index]; !ok || p.restart > q.restart {
			m[p.index] = p
		}
	}
	return m
}

func (run *campaignRun) desired() int32 {
	if run.c.Spec.Suspend || run.terminal() {
		return 0
	}
	return run.partitionCount()
}

// partitionCount is how many partitions the campaign runs:
// spec.partitions.count, or with spec.deadline the burst's decision (the
// count held from before until this reconcile makes it).
func (run *campaignRun) partitionCount() int32 {
	switch {
	case run.burstCount != nil:
		return *run.burstCount
	case run.c.Spec.Deadline != nil:
		return run.heldCount()
	}
	return run.c.Spec.Partitions.Count
}

// countWhy says where the partition count comes from, for the events of
// partitions removed above it.
func (run *campaignRun) countWhy(count int) string {
	if run.c.Spec.Deadline != nil {
		return fmt.Sprintf("the deadline burst runs %d now (the OnSchedule condition says why)", count)
	}
	return fmt.Sprintf("spec.partitions.count is %d", count)
}

func (run *campaignRun) activePartitions() int {
	n := 0
	for _, p := range run.parts {
		if p.active() {
			n++
		}
	}
	return n
}

// reconcilePartitions keeps one live partition per index below
// spec.partitions.count: it creates missing ones, replaces failed ones
// within the restart budget after their backoff, and removes those above
// the count (or all, when suspended).
func (run *campaignRun) reconcilePartitions(ctx context.Context) (bool, error) {
	c := run.c
	defer run.pollWhileRunning()
	if c.Spec.Suspend {
		if err := run.cleanupPartitions(ctx, "campaign suspended"); err != nil {
			return false, err
		}
		c.Status.Phase = v1alpha1.CampaignSuspended
		c.Status.Partitions.Running, c.Status.Partitions.Queued = 0, 0
		c.Status.PartitionsRatio = "0/0" // desired is 0 while suspended
		msg := "suspended: partitions removed, the ledger keeps every committed chunk"
		run.setCondition(v1alpha1.ConditionProgressing, false, "Suspended", msg)
		if run.before.Phase != v1alpha1.CampaignSuspended {
			run.normal("Suspended", "Suspend", msg)
		}
		return true, nil
	}
	if run.before.Phase == v1alpha1.CampaignSuspended {
		run.normal("Resumed", "Resume", "resumed: partitions continue from the ledger")
	}

	count := int(run.partitionCount())
	budget := int(c.Spec.RetryPolicy.MaxPartitionRestarts)
	plan := planReplacements(replacementInput{
		parts: run.parts, count: count, policy: c.Spec.RetryPolicy,
		used: int(c.Status.Partitions.Replaced), ledgerRead: run.readAfterExits(), complete: run.status != nil && run.status.Complete, now: run.now,
	})
	if err := run.deleteAll(ctx, plan.remove, run.countWhy(count)); err != nil {
		return false, err
	}
	if len(run.parts) > 0 {
		run.started()
	}
	var creates []client.Object
	for _, st := range plan.steps {
		switch st.kind {
		case stepCreate:
			obj, ok, err := run.buildPartition(ctx, st.index, 0)
			if !ok || err != nil {
				return false, err
			}
			creates = append(creates, obj)
		case stepWait:
			run.requeueWithin(st.wait)
		case stepReplace:
			if ok, err := run.createPartition(ctx, st.index, st.restart); !ok || err != nil {
				return false, err
			}
			c.Status.Partitions.Replaced++
			run.warn("PartitionReplaced", "Replace", fmt.Sprintf("%s; replaced by %s (%d of %d restarts used)",
				describeEnd(st.old), PartitionName(c.Name, st.index, st.restart), st.used, budget))
			// The failed one has done its job as a record; its replacement
			// carries on, and the event keeps the reason.
			if err := run.deletePartition(ctx, st.old, "replaced"); err != nil {
				return false, err
			}
		}
	}
	if err := run.createAll(ctx, creates, 0); err != nil {
		return false, err
	}
	exhausted, lastFailure := plan.exhausted, plan.lastFailure
	s := &c.Status
	switch {
	case exhausted == count:
		return run.fail("PartitionsFailed", fmt.Sprintf("every partition failed and the restart budget (spec.retryPolicy.maxPartitionRestarts=%d) is used up; last: %s", budget, lastFailure))
	case exhausted > 0:
		run.setCondition(v1alpha1.ConditionDegraded, true, "RestartBudgetExhausted",
			fmt.Sprintf("%d of %d partitions failed and cannot be replaced (spec.retryPolicy.maxPartitionRestarts=%d); the others carry on. Last: %s", exhausted, count, budget, lastFailure))
	default:
		if run.status != nil { // the ledger answered
			run.setCondition(v1alpha1.ConditionDegraded, false, "AsExpected", "")
		}
	}
	s.Phase = v1alpha1.CampaignRunning
	msg := fmt.Sprintf("%d running, %d queued of %d partitions; %s chunks committed", s.Partitions.Running, s.Partitions.Queued, count, s.ChunksRatio)
	run.setCondition(v1alpha1.ConditionReady, true, "Running", msg)
	run.setCondition(v1alpha1.ConditionProgressing, true, "Running", msg)
	return true, nil
}

// ReasonMemoryShort: the campaign's worker pods have less memory than
// their slots' smallest shard groups and BLAST want (sizeWorkers).
const ReasonMemoryShort = "MemoryBelowShards"

// createPartition creates partition index's restart-th object; false when
// the executor refused it and the campaign failed.
func (run *campaignRun) createPartition(ctx context.Context, index, restart int) (bool, error) {
	obj, ok, err := run.buildPartition(ctx, index, restart)
	if !ok || err != nil {
		return ok, err
	}
	return true, run.createAll(ctx, []client.Object{obj}, restart)
}

// buildPartition makes partition index's restart-th object, owned by the
// campaign, and what it needs in the namespace first; false when the
// executor refused it and the campaign failed.
func (run *campaignRun) buildPartition(ctx context.Context, index, restart int) (client.Object, bool, error) {
	c := run.c
	spec := NewPartitionSpec(&PartitionRequest{Campaign: c, Index: index, Restart: restart, Location: run.loc, Image: run.r.image(c), Site: run.r.Site, Database: run.db,
		STSEndpoint: run.r.Stores.STSEndpoint, QueryBytes: run.queryBytes()})
	ex, err := run.r.executorFor(c)
	if err != nil {
		// Not a failure: installing Argo and restarting the operator
		// lets the campaign run.
		run.setCondition(v1alpha1.ConditionReady, false, "ExecutorUnavailable", err.Error())
		run.setCondition(v1alpha1.ConditionProgressing, false, "ExecutorUnavailable", err.Error())
		run.warnOnce("ExecutorUnavailable", err.Error())
		return nil, false, nil
	}
	if err := run.ensureNetworkPolicy(ctx); err != nil {
		return nil, false, err
	}
	if p, ok := ex.(executor.Preparer); ok {
		if err := p.Prepare(ctx, run.r.Client, c.Namespace, spec.ServiceAccountName); err != nil {
			return nil, false, fmt.Errorf("preparing namespace %s for partition %s: %w", c.Namespace, spec.Name, err)
		}
	}
	obj, err := ex.Build(spec)
	if err != nil {
		ok, err := run.fail("InvalidPartition", err.Error())
		return nil, ok, err
	}
	if err := controllerutil.SetControllerReference(c, obj, run.r.Scheme); err != nil {
		return nil, false, fmt.Errorf("owning partition %s: %w", obj.GetName(), err)
	}
	return obj, true, nil
}

// createAll creates the partitions side by side: a campaign's eight
// partitions are eight round trips to the API server, which one at a time
// would hold its reconcile eight times as long. Each created is counted
// and told; the first error is returned once all are tried.
func (run *campaignRun) createAll(ctx context.Context, objs []client.Object, restart int) error {
	errs := sideBySide(len(objs), func(i int) error { return run.r.Create(ctx, objs[i]) })
	var first error
	for i, obj := range objs {
		switch err := errs[i]; {
		case apierrors.IsAlreadyExists(err):
			// Created by an earlier reconcile the cache has not seen yet.
			run.started()
		case err != nil:
			if first == nil {
				first = fmt.Errorf("creating partition %s: %w", obj.GetName(), err)
			}
		default:
			run.started()
			run.c.Status.Partitions.Queued++
			if restart == 0 {
				run.normal("PartitionCreated", "Create", fmt.Sprintf("partition %s created", obj.GetName()))
			}
		}
	}
	return first
}

// started records the campaign's first partition: its start time and the
// warning that its workers' memory is short. Both ride on status.startTime,
// so a reconcile whose status write was lost (a conflict) leaves them to
// the next one, which finds the partition already there.
func (run *campaignRun) started() {
	c := run.c
	if c.Status.StartTime != nil {
		return
	}
	t := metav1.NewTime(run.now)
	c.Status.StartTime = &t
	if short := sizeWorkers(c.Spec.Partitions, run.db, run.queryBytes()).Short; short != "" {
		run.warn(ReasonMemoryShort, "Create", short)
	}
}

// queryBytes is the queries object's size by the plan, 0 before the
// ledger is read.
func (run *campaignRun) queryBytes() int64 {
	if run.ledger == nil {
		return 0
	}
	return run.ledger.Plan().Queries.Size
}

func (run *campaignRun) deletePartition(ctx context.Context, p partition, why string) error {
	return run.deleteAll(ctx, []partition{p}, why)
}

// deleteAll deletes the partitions side by side (a finished campaign's
// eight at once), then tells of each deleted; the first error is returned
// once all are tried.
func (run *campaignRun) deleteAll(ctx context.Context, parts []partition, why string) error {
	errs := sideBySide(len(parts), func(i int) error {
		return run.r.Delete(ctx, parts[i].obj, client.PropagationPolicy(metav1.DeletePropagationBackground))
	})
	var first error
	for i, p := range parts {
		if err := errs[i]; err != nil && !apierrors.IsNotFound(err) {
			if first == nil {
				first = fmt.Errorf("deleting partition %s: %w", p.obj.GetName(), err)
			}
			continue
		}
		if p.active() {
			run.normal("PartitionDeleted", "Delete", fmt.Sprintf("partition %s deleted: %s", p.obj.GetName(), why))
		}
	}
	return first
}

// ensureParts lists the partitions unless this reconcile already did.
func (run *campaignRun) ensureParts(ctx context.Context) error {
	if run.parts != nil {
		return nil
	}
	parts, err := run.listPartitions(ctx)
	run.parts = parts
	return err
}

// cleanupPartitions deletes every partition still running or queued.
func (run *campaignRun) cleanupPartitions(ctx context.Context, why string) error {
	if err := run.ensureParts(ctx); err != nil {
		return err
	}
	var active []partition
	for _, p := range run.parts {
		if p.active() {
			active = append(active, p)
		}
	}
	return run.deleteAll(ctx, active, why)
}

// windDownPartitions ends a finished campaign's partitions as windDown
// says.
func (run *campaignRun) windDownPartitions(ctx context.Context) error {
	if err := run.ensureParts(ctx); err != nil {
		return err
	}
	remove, wait := windDown(run.parts, run.c.Status.CompletionTime, run.r.WindDown, run.now)
	if err := run.deleteAll(ctx, remove, "campaign finished"); err != nil {
		return err
	}
	if wait > 0 {
		run.requeueWithin(wait)
	}
	return nil
}

func (run *campaignRun) requeueWithin(d time.Duration) {
	if run.requeue == 0 || d < run.requeue {
		run.requeue = d
	}
}

// pollWhileRunning reads the ledger again after the poll interval: its
// progress has no watch.
func (run *campaignRun) pollWhileRunning() {
	if !run.terminal() && !run.c.Spec.Suspend {
		run.requeueWithin(run.r.poll())
	}
}

// sideBySide runs f(0) ... f(n-1) at once and returns their errors, in
// order.
func sideBySide(n int, f func(i int) error) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = f(i)
		}()
	}
	wg.Wait()
	return errs
}
