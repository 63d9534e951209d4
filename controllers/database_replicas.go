package controllers

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
)

// Reasons of the conditions replicas set on a Ready database.
const (
	reasonReplicating    = "Replicating"
	reasonReplicated     = "Replicated"
	reasonReplicaFailed  = "ReplicaFailed"
	reasonReplicaReady   = "ReplicaReady"
	reasonReplicasFailed = "ReplicasFailed"
)

// replicate keeps status.replicas in step with spec.replicas. Until the
// build is Ready every replica is Pending; then a Job copies the build to
// each (replicaJob), and the replica takes the Job's outcome. A failed
// copy leaves the database Ready: the replica is Failed, Degraded says
// why, and campaigns do not read it. Jobs of replicas removed or changed
// are deleted (what they copied stays in the store).
func (run *databaseRun) replicate(ctx context.Context) (time.Duration, error) {
	db := run.db
	if len(db.Spec.Replicas) == 0 && len(run.before.Replicas) == 0 {
		return 0, nil
	}
	ready := db.Status.Phase == v1alpha1.DatabaseReady
	prev := map[string]*v1alpha1.ReplicaStatus{}
	for i := range run.before.Replicas {
		prev[run.before.Replicas[i].Name] = &run.before.Replicas[i]
	}
	var out []v1alpha1.ReplicaStatus
	keep := map[string]bool{}
	var requeue time.Duration
	for i, r := range db.Spec.Replicas {
		s := v1alpha1.ReplicaStatus{Name: r.Name, State: v1alpha1.ReplicaPending, Location: replicaLocation(db, r),
			Message: "waiting for the database to be Ready"}
		if ready {
			var err error
			if s, err = run.replica(ctx, i, r, prev[r.Name]); err != nil {
				return 0, err
			}
			keep[s.Job] = true
		}
		if s.State == v1alpha1.ReplicaPending || s.State == v1alpha1.ReplicaCopying {
			requeue = run.r.PollInterval
		}
		run.transition(&s, prev[r.Name])
		out = append(out, s)
	}
	if err := run.deleteReplicaJobs(ctx, keep); err != nil {
		return 0, err
	}
	db.Status.Replicas = out
	db.Status.ReplicasReady = ""
	if n := len(out); n > 0 {
		db.Status.ReplicasReady = fmt.Sprintf("%d/%d", countReplicas(out, v1alpha1.ReplicaReady), n)
	}
	if ready {
		run.replicaConditions()
	}
	return requeue, nil
}

// replica is replica i's state: the outcome of its copy Job, which it
// creates unless it has one.
func (run *databaseRun) replica(ctx context.Context, i int, r v1alpha1.DatabaseReplica, prev *v1alpha1.ReplicaStatus) (v1alpha1.ReplicaStatus, error) {
	db := run.db
	want := replicaJob(db, r, run.r.image(db))
	podWithSTS(&want.Spec.Template.Spec, run.r.Stores.STSEndpoint)
	s := v1alpha1.ReplicaStatus{Name: r.Name, Location: replicaLocation(db, r), Build: db.Status.Build, Job: want.Name}
	// Settled: its Job may be gone (ttlSecondsAfterFinished), and must
	// not copy again.
	if prev != nil && prev.Job == want.Name && (prev.State == v1alpha1.ReplicaReady || prev.State == v1alpha1.ReplicaFailed) {
		return *prev, nil
	}
	// The copy's pods get the replica's Secret and the image: checked as
	// for any pod the operator creates, before it exists.
	field := fmt.Sprintf("spec.replicas[%d].storage", i)
	if err := errors.Join(run.r.Policy.Image("spec.image", db.Spec.Image, run.r.WorkerImage),
		run.r.Policy.ServiceAccount("spec.serviceAccountName", db.Spec.ServiceAccountName),
		run.r.Stores.CheckAccess(ctx, db.Namespace, field, r.Storage)); err != nil {
		s.State, s.Message = v1alpha1.ReplicaPending, err.Error()
		return s, nil
	}
	job, err := run.ensureJob(ctx, want)
	if err != nil {
		return s, err
	}
	switch {
	case job.DeletionTimestamp != nil:
		// The same copy removed and named again: its old Job goes first.
		s.State, s.Message = v1alpha1.ReplicaPending, "waiting for Job "+job.Name+" to be deleted"
	case jobCondition(job, batchv1.JobFailed):
		s.State, s.Message = v1alpha1.ReplicaFailed, "copying the build failed: "+run.podFailure(ctx, job)
	case jobCondition(job, batchv1.JobComplete):
		s.State, s.Bytes = v1alpha1.ReplicaReady, db.Status.Bytes
		s.Message = fmt.Sprintf("holds %s of %s", buildName(db.Status.Build), db.Status.Location)
	default:
		s.State, s.Message = v1alpha1.ReplicaCopying, fmt.Sprintf("copying %s to %s (Job %s)", db.Status.Location, s.Location, job.Name)
	}
	return s, nil
}

// transition stamps s's state change since prev, and tells of a replica
// that became Ready or Failed.
func (run *databaseRun) transition(s, prev *v1alpha1.ReplicaStatus) {
	if prev != nil && prev.State == s.State && prev.LastTransitionTime != nil {
		s.LastTransitionTime = prev.LastTransitionTime
		return
	}
	s.LastTransitionTime = &metav1.Time{Time: time.Now().Truncate(time.Second)}
	switch s.State {
	case v1alpha1.ReplicaReady:
		run.events = append(run.events, event{reason: reasonReplicaReady, action: "Replicate", note: "replica " + s.Name + ": " + s.Message})
	case v1alpha1.ReplicaFailed:
		run.events = append(run.events, event{warning: true, reason: reasonReplicaFailed, action: "Replicate",
			note: "replica " + s.Name + ": " + s.Message + "; the database stays Ready, campaigns do not read this replica"})
	}
}

// replicaConditions says on a Ready database whether copies run
// (Progressing) and whether any failed (Degraded).
func (run *databaseRun) replicaConditions() {
	db := run.db
	set := func(t string, on bool, reason, msg string) {
		st := metav1.ConditionFalse
		if on {
			st = metav1.ConditionTrue
		}
		meta.SetStatusCondition(&db.Status.Conditions, metav1.Condition{Type: t, Status: st, Reason: reason,
			Message: truncate(msg, 32*1024), ObservedGeneration: db.Generation})
	}
	if len(db.Status.Replicas) == 0 {
		meta.RemoveStatusCondition(&db.Status.Conditions, v1alpha1.ConditionDegraded)
		set(v1alpha1.ConditionProgressing, false, reasonReplicated, "no replicas")
		return
	}
	var failed, busy []string
	for _, s := range db.Status.Replicas {
		switch s.State {
		case v1alpha1.ReplicaFailed:
			failed = append(failed, s.Name+": "+s.Message)
		case v1alpha1.ReplicaPending, v1alpha1.ReplicaCopying:
			busy = append(busy, s.Name)
		}
	}
	if len(busy) > 0 {
		set(v1alpha1.ConditionProgressing, true, reasonReplicating, "copying the build to replicas "+strings.Join(busy, ", "))
	} else {
		set(v1alpha1.ConditionProgressing, false, reasonReplicated, fmt.Sprintf("replicas ready: %s", db.Status.ReplicasReady))
	}
	if len(failed) > 0 {
		set(v1alpha1.ConditionDegraded, true, reasonReplicasFailed, "campaigns do not read the failed replicas: "+strings.Join(failed, "; "))
	} else {
		set(v1alpha1.ConditionDegraded, false, reasonReplicated, "no replica failed")
	}
}

// deleteReplicaJobs deletes the database's copy Jobs not in keep: of
// replicas removed or changed since, or of a build no longer current.
func (run *databaseRun) deleteReplicaJobs(ctx context.Context, keep map[string]bool) error {
	db := run.db
	var jobs batchv1.JobList
	if err := run.r.List(ctx, &jobs, client.InNamespace(db.Namespace),
		client.MatchingLabels{LabelDatabase: db.Name, LabelComponent: componentReplica}); err != nil {
		return fmt.Errorf("listing the replica Jobs of %s: %w", db.Name, err)
	}
	for i := range jobs.Items {
		job := &jobs.Items[i]
		if keep[job.Name] || job.DeletionTimestamp != nil || !metav1.IsControlledBy(job, db) {
			continue
		}
		err := run.r.Delete(ctx, job, client.PropagationPolicy(metav1.DeletePropagationBackground))
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting Job %s: %w", job.Name, err)
		}
		run.events = append(run.events, event{reason: "JobDeleted", action: "Delete",
			note: "Job " + job.Name + " deleted: its replica " + job.Labels[LabelReplica] + " was removed or changed"})
	}
	return nil
}

// replicasSettled says whether every replica of a Ready database has its
// copy's outcome for what it names now, so there is nothing to follow.
func replicasSettled(db *v1alpha1.BlastDatabase) bool {
	if db.Status.Phase != v1alpha1.DatabaseReady {
		return true
	}
	if len(db.Status.Replicas) != len(db.Spec.Replicas) {
		return false
	}
	for i, r := range db.Spec.Replicas {
		s := db.Status.Replicas[i]
		if s.Name != r.Name || (s.State != v1alpha1.ReplicaReady && s.State != v1alpha1.ReplicaFailed) ||
			s.Job != ReplicaJobName(db.Name, r.Name, replicaHash(db, r)) {
			return false
		}
	}
	return true
}

func countReplicas(rs []v1alpha1.ReplicaStatus, state v1alpha1.ReplicaState) int {
	n := 0
	for _, s := range rs {
		if s.State == state {
			n++
		}
	}
	return n
}

// buildName is a build for a message ("the build" for a database built
// before builds had names).
func buildName(b string) string {
	if b == "" {
		return "the build"
	}
	return b
}
