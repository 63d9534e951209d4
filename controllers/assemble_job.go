package controllers

import (
	"context"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
)

// assembleJob runs `blastfleet campaign assemble` in the worker image:
// assembly reads every committed result through SHA-256, data-plane work
// that belongs beside the data, not in a reconcile. It takes the
// partitions' assembly lease, so it is safe beside a late one, and an
// assembled campaign makes it exit at once; deadline bounds it.
func assembleJob(c *v1alpha1.SearchCampaign, db *v1alpha1.BlastDatabase, loc, image string, deadline int64) *batchv1.Job {
	job := campaignJob(c, db, AssembleJobName(c.Name), componentAssemble, []string{"campaign", "assemble", loc}, image)
	job.Spec.ActiveDeadlineSeconds = ptr.To(max(deadline, 60))
	return job
}

// assembleByJob is for a complete campaign whose result is not assembled
// and whose partitions are all gone (they failed, were deleted, or ran
// before partitions assembled): a Job assembles it. The campaign stays
// Running meanwhile; the Job's end (a watch event) or the next poll
// finds the marker. A Job that ended without one (it failed, or a
// result failed its check) is reported and removed, so the next poll
// starts another, as long as the ledger is still complete.
func (run *campaignRun) assembleByJob(ctx context.Context) (bool, error) {
	c := run.c
	run.requeueWithin(run.r.poll())
	var job batchv1.Job
	err := run.r.Get(ctx, client.ObjectKey{Namespace: c.Namespace, Name: AssembleJobName(c.Name)}, &job)
	if apierrors.IsNotFound(err) {
		if err := run.policyViolation(); err != nil {
			return run.refuse(err)
		}
		timeout := run.r.Bounds.withDefaults().AssembleTimeout
		job := assembleJob(c, run.db, run.loc, run.r.image(c), int64(timeout.Seconds()))
		if err := run.createJob(ctx, job, "assembly"); err != nil {
			return false, err
		}
		run.normal("AssembleStarted", "Assemble", fmt.Sprintf("every chunk is decided and no partition is left to assemble the result: Job %s assembles it", job.Name))
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading assembly Job: %w", err)
	}
	failed := jobCondition(&job, batchv1.JobFailed)
	if !failed && !jobCondition(&job, batchv1.JobComplete) {
		return false, nil // assembling
	}
	if failed {
		msg := "assembly Job " + job.Name + " failed: " + podFailure(ctx, podReader(run.r.Pods, run.r.Client), c.Namespace, job.Name, jobMessage(&job))
		run.setCondition(v1alpha1.ConditionDegraded, true, "AssembleFailed", truncate(msg, 1024))
		run.warn("AssembleFailed", "Assemble", truncate(msg, 1024))
	}
	// Ended without the marker: another Job, once the ledger says the
	// campaign is still complete (a voided result reopens its chunk,
	// and the partitions redo it first).
	if err := run.r.Delete(ctx, &job, client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil && !apierrors.IsNotFound(err) {
		return false, fmt.Errorf("deleting ended assembly Job: %w", err)
	}
	return false, nil
}

// createJob creates one of the campaign's Jobs (planJob, assembleJob),
// owned by it, its pod told the STS endpoint; one already there is kept.
func (run *campaignRun) createJob(ctx context.Context, job *batchv1.Job, what string) error {
	podWithSTS(&job.Spec.Template.Spec, run.r.Stores.STSEndpoint)
	if err := controllerutil.SetControllerReference(run.c, job, run.r.Scheme); err != nil {
		return err
	}
	if err := run.r.Create(ctx, job); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating %s Job: %w", what, err)
	}
	return nil
}
