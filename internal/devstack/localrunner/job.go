package localrunner

import (
	"context"
	"path/filepath"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

func (r *Runner) setupJobs(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("localrunner-job").
		For(&batchv1.Job{}).
		WithEventFilter(predicate.NewPredicateFuncs(func(o client.Object) bool { return r.inScope(o.GetNamespace()) })).
		WatchesRawSource(source.Channel(r.jobEvents, &handler.EnqueueRequestForObject{})).
		WithOptions(controller.Options{MaxConcurrentReconciles: 4, SkipNameValidation: ptr.To(true)}).
		Complete(reconcile.Func(r.reconcileJob))
}

// runsJob reports whether the runner stands in for j's controller: not
// for the MPI operator's launcher Jobs (the runner runs the MPIJob
// itself), nor for Jobs another controller manages.
func (r *Runner) runsJob(j *batchv1.Job) bool {
	if ref := metav1.GetControllerOf(j); ref != nil && ref.Kind == "MPIJob" {
		return false
	}
	if m := j.Spec.ManagedBy; m != nil && *m != batchv1.JobControllerName {
		return false
	}
	return r.opts.JobSelector == nil || r.opts.JobSelector.Matches(labels.Set(j.Labels))
}

// reconcileJob runs a Job's pods as processes and writes the status the
// Job controller would. Only this function writes status; the goroutines
// owning processes record what happened and ask for a reconcile.
func (r *Runner) reconcileJob(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var job batchv1.Job
	if found, err := r.fetch(ctx, req, &job, "Job", r.forgetJob); !found {
		return ctrl.Result{}, err
	}
	if !r.runsJob(&job) {
		return ctrl.Result{}, nil
	}
	r.mu.Lock()
	stopping, run := r.stopping, r.jobs.runs[req.NamespacedName]
	_, tombstone := r.jobs.finished[job.UID]
	r.mu.Unlock()
	if stopping {
		return ctrl.Result{}, nil
	}
	if run != nil && run.uid != job.UID {
		r.stopPods(run, "replaced by a new Job of the same name")
		return r.dropWhenStopped(run)
	}
	if job.DeletionTimestamp != nil {
		if run != nil {
			r.stopPods(run, "Job deleted")
		}
		return ctrl.Result{}, nil
	}
	st := &job.Status
	if jobFinished(st) {
		r.mu.Lock()
		delete(r.jobs.finished, job.UID)
		r.mu.Unlock()
		if run != nil {
			r.stopPods(run, "Job finished")
			return r.dropWhenStopped(run)
		}
		return ctrl.Result{}, nil
	}
	if tombstone {
		return ctrl.Result{}, nil // finished by us; the cache lags
	}
	before := st.DeepCopy()
	if run == nil {
		// Decided before the runner (re)started: only the terminal
		// condition is missing, as the Job controller would add it.
		for _, t := range []batchv1.JobConditionType{batchv1.JobSuccessCriteriaMet, batchv1.JobFailureTarget} {
			if c := jobCondition(st, t); c != nil && c.Status == corev1.ConditionTrue {
				return r.finishJob(ctx, &job, c.DeepCopy(), before)
			}
		}
		run = newJobRun(&job)
		if st.Active > 0 {
			if n := sweepStale(filepath.Join(runDir(r.opts.WorkDir, job.Namespace, job.Name), "*-*.log"), r.opts.KillGrace); n > 0 {
				r.log.Info("killed pods a previous runner left behind", "job", req.NamespacedName, "sessions", n)
			}
		}
		r.mu.Lock()
		r.jobs.runs[req.NamespacedName] = run
		r.mu.Unlock()
	}

	now := time.Now()
	if ptr.Deref(job.Spec.Suspend, false) {
		r.stopPods(run, "Job suspended")
		setJobCondition(st, batchv1.JobSuspended, corev1.ConditionTrue, jobSuspendedReason, "Job suspended")
		st.StartTime = nil
		r.mu.Lock()
		run.fillStatus(st)
		_, terminating := run.counts()
		r.mu.Unlock()
		res, err := r.writeStatus(ctx, &job, before, &job.Status)
		if terminating > 0 {
			res.RequeueAfter = requeueSoon
		}
		return res, err
	}
	if jobHas(st, batchv1.JobSuspended) {
		setJobCondition(st, batchv1.JobSuspended, corev1.ConditionFalse, jobResumedReason, "Job resumed")
		st.StartTime = ptr.To(metav1.NewTime(now))
	}
	if st.StartTime == nil {
		st.StartTime = ptr.To(metav1.NewTime(now))
	}

	r.mu.Lock()
	if run.finish == nil {
		run.finish = run.evaluate(&job, now)
	}
	finish := run.finish
	r.mu.Unlock()
	var wait time.Duration
	if finish != nil {
		r.stopPods(run, "Job "+finish.Reason)
	} else {
		wait = r.startPods(ctx, run, &job)
		if d := untilDeadline(&job, now); d > 0 && (wait == 0 || d < wait) {
			wait = d
		}
	}
	r.mu.Lock()
	run.fillStatus(st)
	active, terminating := run.counts()
	r.mu.Unlock()
	if finish != nil && active == 0 && terminating == 0 {
		return r.finishJob(ctx, &job, finish, before)
	}
	res, err := r.writeStatus(ctx, &job, before, &job.Status)
	if res.RequeueAfter == 0 {
		res.RequeueAfter = wait
	}
	return res, err
}

// finishJob writes the interim condition, then the terminal one (with
// completionTime for Complete), in two writes as the Job controller does:
// the API server rejects a terminal condition without its interim one.
func (r *Runner) finishJob(ctx context.Context, job *batchv1.Job, interim *batchv1.JobCondition, before *batchv1.JobStatus) (ctrl.Result, error) {
	st := &job.Status
	if !jobHas(st, interim.Type) {
		st.Conditions = append(st.Conditions, *interim)
	}
	if res, err := r.writeStatus(ctx, job, before, &job.Status); err != nil || res.RequeueAfter > 0 {
		return res, err
	}
	before = st.DeepCopy()
	final := finalCondition(interim)
	st.Conditions = append(st.Conditions, final)
	if final.Type == batchv1.JobComplete {
		st.CompletionTime = ptr.To(final.LastTransitionTime)
	}
	if res, err := r.writeStatus(ctx, job, before, &job.Status); err != nil || res.RequeueAfter > 0 {
		return res, err
	}
	key := types.NamespacedName{Namespace: job.Namespace, Name: job.Name}
	r.mu.Lock()
	r.jobs.finished[job.UID] = key
	if run := r.jobs.runs[key]; run != nil && run.uid == job.UID {
		delete(r.jobs.runs, key)
	}
	r.mu.Unlock()
	r.log.Info("Job finished", "job", key, "condition", final.Type, "reason", final.Reason)
	return ctrl.Result{}, nil
}

// dropWhenStopped forgets a run once its killed pods are gone.
func (r *Runner) dropWhenStopped(run *jobRun) (ctrl.Result, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(run.active) > 0 {
		return ctrl.Result{RequeueAfter: requeueSoon}, nil
	}
	if r.jobs.runs[run.key] == run {
		delete(r.jobs.runs, run.key)
	}
	return ctrl.Result{}, nil
}

// forgetJob kills a deleted Job's pods and drops its records; the run
// itself goes once its pods are gone (each exit brings another reconcile),
// so a new Job of the same name waits for them.
func (r *Runner) forgetJob(key types.NamespacedName) {
	r.mu.Lock()
	run := r.jobs.runs[key]
	if run != nil && len(run.active) == 0 {
		delete(r.jobs.runs, key)
	}
	for uid, k := range r.jobs.finished {
		if k == key {
			delete(r.jobs.finished, uid)
		}
	}
	r.mu.Unlock()
	if run != nil {
		r.stopPods(run, "Job deleted")
	}
}
