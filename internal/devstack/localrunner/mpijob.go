package localrunner

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/blastfleet/blastfleet/internal/engine/enginemetrics"
)

// requeueSoon is how often the reconcilers look again while a killed run
// is still ending or a write lost a conflict.
const requeueSoon = 200 * time.Millisecond

// pendingRetry is how often a pod that cannot start yet (a missing
// Secret) is tried again.
const pendingRetry = 5 * time.Second

func (r *Runner) setupMPIJobs(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("localrunner-mpijob").
		For(&kubeflow.MPIJob{}).
		WithEventFilter(predicate.NewPredicateFuncs(func(o client.Object) bool { return r.inScope(o.GetNamespace()) })).
		WatchesRawSource(source.Channel(r.mpiEvents, &handler.EnqueueRequestForObject{})).
		WithOptions(controller.Options{MaxConcurrentReconciles: 4, SkipNameValidation: ptr.To(true)}).
		Complete(reconcile.Func(r.reconcileMPIJob))
}

// reconcileMPIJob runs an MPIJob's launcher once and reports on it as the
// MPI operator would. The status is written only here; the goroutine
// owning the process records what happened and asks for a reconcile.
func (r *Runner) reconcileMPIJob(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := r.log.WithValues("mpijob", req.NamespacedName)
	var job kubeflow.MPIJob
	if found, err := r.fetch(ctx, req, &job, "MPIJob", r.forgetMPIJob); !found {
		return ctrl.Result{}, err
	}
	if m := job.Spec.RunPolicy.ManagedBy; m != nil && *m != kubeflow.KubeflowJobController {
		return ctrl.Result{}, nil // another controller's, as the MPI operator skips it
	}
	r.mu.Lock()
	stopping, run, res := r.stopping, r.mpi.runs[req.NamespacedName], r.mpi.results[job.UID]
	r.mu.Unlock()
	if stopping {
		return ctrl.Result{}, nil
	}
	if job.DeletionTimestamp != nil {
		if run != nil {
			run.stop("MPIJob deleted")
		}
		return ctrl.Result{}, nil
	}
	if run != nil && (run.uid != job.UID || run.stopped()) {
		// A stop is still killing the old process: never two at once.
		run.stop("replaced by a new MPIJob of the same name")
		return ctrl.Result{RequeueAfter: requeueSoon}, nil
	}

	kubeflow.SetDefaults_MPIJob(&job) // read the spec as the MPI operator does; status is not touched
	before := job.Status.DeepCopy()
	st := &job.Status
	if mpiFinished(st) {
		if run != nil {
			run.stop("MPIJob finished")
		}
		r.mu.Lock()
		delete(r.mpi.results, job.UID)
		r.mu.Unlock()
		return ctrl.Result{}, nil
	}
	if len(st.Conditions) == 0 {
		setMPICondition(st, kubeflow.JobCreated, corev1.ConditionTrue, mpiJobCreatedReason, fmt.Sprintf("MPIJob %s/%s is created.", job.Namespace, job.Name))
	}
	if ptr.Deref(job.Spec.RunPolicy.Suspend, false) {
		if run != nil {
			run.stop("MPIJob suspended")
		}
		setMPICondition(st, kubeflow.JobSuspended, corev1.ConditionTrue, mpiJobSuspendedReason, "MPIJob suspended")
		setMPICondition(st, kubeflow.JobRunning, corev1.ConditionFalse, mpiJobSuspendedReason, fmt.Sprintf("MPIJob %s/%s is suspended.", job.Namespace, job.Name))
		replicaStatus(st, kubeflow.MPIReplicaTypeLauncher)
		replicaStatus(st, kubeflow.MPIReplicaTypeWorker)
		return r.writeStatus(ctx, &job, before, &job.Status)
	}
	if mpiHas(st, kubeflow.JobSuspended) {
		setMPICondition(st, kubeflow.JobSuspended, corev1.ConditionFalse, mpiJobResumedReason, "MPIJob resumed")
		st.StartTime = ptr.To(metav1.Now())
	}
	if st.StartTime == nil {
		st.StartTime = ptr.To(metav1.Now())
	}

	if run == nil {
		switch {
		case res != nil:
			applyLauncherResult(&job, res)
			finishedWithoutRunning(&job)
			return r.writeStatus(ctx, &job, before, &job.Status)
		case mpiHas(st, kubeflow.JobRunning):
			// Running, but not by this runner: its process died with the
			// runner that started it.
			if n := sweepStale(r.LauncherLog(job.Namespace, job.Name), r.opts.KillGrace); n > 0 {
				log.Info("killed processes a previous runner left behind", "sessions", n)
			}
			st.CompletionTime = ptr.To(metav1.Now())
			setMPICondition(st, kubeflow.JobFailed, corev1.ConditionTrue, ReasonLauncherLost,
				fmt.Sprintf("MPIJob %s/%s was running under a local runner that stopped; its launcher process is gone.", job.Namespace, job.Name))
			return r.writeStatus(ctx, &job, before, &job.Status)
		case !equality.Semantic.DeepEqual(before, st):
			// Created (or resumed) goes out before the launcher starts.
			res, err := r.writeStatus(ctx, &job, before, &job.Status)
			return ctrl.Result{RequeueAfter: max(res.RequeueAfter, requeueSoon)}, err
		}
		if err := r.annotateLauncherLog(ctx, &job); err != nil {
			return ctrl.Result{}, err
		}
		var err error
		if run, err = r.startLauncher(ctx, &job); err != nil {
			if errors.Is(err, errPending) {
				log.Info("launcher cannot start yet", "reason", err.Error())
				return ctrl.Result{RequeueAfter: pendingRetry}, nil
			}
			return ctrl.Result{}, err
		}
		log.Info("launcher started", "log", r.LauncherLog(job.Namespace, job.Name))
	}

	setMPICondition(st, kubeflow.JobRunning, corev1.ConditionTrue, mpiJobRunningReason, fmt.Sprintf("MPIJob %s/%s is running.", job.Namespace, job.Name))
	r.mu.Lock()
	ls := replicaStatus(st, kubeflow.MPIReplicaTypeLauncher)
	ls.Failed = run.failures
	if run.proc != nil && !run.proc.exited() {
		ls.Active = 1
	}
	r.mu.Unlock()
	replicaStatus(st, kubeflow.MPIReplicaTypeWorker).Active = workers(&job)
	return r.writeStatus(ctx, &job, before, &job.Status)
}

// launcherRanks is how many ranks the launcher's mpirun starts, all on
// this machine, each serving /metrics on the base port plus its index:
// its -np, which may exceed the workers' slots (the operator's master is
// a rank beyond them); without one, mpirun's own default, a rank per slot.
func launcherRanks(job *kubeflow.MPIJob, l *kubeflow.ReplicaSpec) int {
	if len(l.Template.Spec.Containers) > 0 {
		args := l.Template.Spec.Containers[0].Args
		for i, a := range args {
			v, ok := "", false
			switch {
			case a == "-np" || a == "--np" || a == "-n":
				if i+1 < len(args) {
					v, ok = args[i+1], true
				}
			default:
				v, ok = strings.CutPrefix(a, "--np=")
			}
			if n, err := strconv.Atoi(v); ok && err == nil && n > 0 {
				return n
			}
		}
	}
	return max(int(workers(job)*ptr.Deref(job.Spec.SlotsPerWorker, 1)), 1)
}

func workers(job *kubeflow.MPIJob) int32 {
	if w := job.Spec.MPIReplicaSpecs[kubeflow.MPIReplicaTypeWorker]; w != nil {
		return ptr.Deref(w.Replicas, 0)
	}
	return 0
}

func applyLauncherResult(job *kubeflow.MPIJob, res *launcherResult) {
	st := &job.Status
	ls := replicaStatus(st, kubeflow.MPIReplicaTypeLauncher)
	ls.Failed = res.failures
	replicaStatus(st, kubeflow.MPIReplicaTypeWorker)
	st.CompletionTime = ptr.To(metav1.NewTime(res.at))
	if res.succeeded {
		ls.Succeeded = 1
		setMPICondition(st, kubeflow.JobSucceeded, corev1.ConditionTrue, mpiJobSucceededReason, fmt.Sprintf("MPIJob %s/%s successfully completed.", job.Namespace, job.Name))
		return
	}
	setMPICondition(st, kubeflow.JobFailed, corev1.ConditionTrue, res.reason, res.message)
}

// finishedWithoutRunning adds Running=False dated at completion when a run
// ended before Running was written, as the MPI operator does, so readers
// computing durations still find the condition.
func finishedWithoutRunning(job *kubeflow.MPIJob) {
	st := &job.Status
	if mpiCondition(st, kubeflow.JobRunning) != nil || st.CompletionTime == nil {
		return
	}
	st.Conditions = append(st.Conditions, kubeflow.JobCondition{
		Type: kubeflow.JobRunning, Status: corev1.ConditionFalse, Reason: mpiJobRunningReason,
		Message:        fmt.Sprintf("MPIJob %s/%s is finished but Running condition was never set.", job.Namespace, job.Name),
		LastUpdateTime: *st.CompletionTime, LastTransitionTime: *st.CompletionTime,
	})
}

// forgetMPIJob kills a deleted MPIJob's launcher and drops its records.
func (r *Runner) forgetMPIJob(key types.NamespacedName) {
	r.mu.Lock()
	run := r.mpi.runs[key]
	for uid, res := range r.mpi.results {
		if res.key == key {
			delete(r.mpi.results, uid)
		}
	}
	r.mu.Unlock()
	if run != nil {
		run.stop("MPIJob deleted")
	}
}

// launcherPod is the stand-in for the launcher pod the MPI operator
// would create.
func (r *Runner) launcherPod(job *kubeflow.MPIJob) (podRequest, error) {
	l := job.Spec.MPIReplicaSpecs[kubeflow.MPIReplicaTypeLauncher]
	if l == nil {
		return podRequest{}, errors.New("the MPIJob has no launcher")
	}
	dir := runDir(r.opts.WorkDir, job.Namespace, job.Name)
	labels := map[string]string{"training.kubeflow.org/job-name": job.Name, "training.kubeflow.org/job-role": "launcher"}
	for k, v := range l.Template.Labels {
		labels[k] = v
	}
	req := podRequest{
		meta: podMeta{Namespace: job.Namespace, Name: job.Name + "-launcher", UID: job.UID,
			Labels: labels, Annotations: l.Template.Annotations, ServiceAccount: l.Template.Spec.ServiceAccountName},
		spec:     &l.Template.Spec,
		injected: operatorEnv(job),
		scratch:  filepath.Join(dir, "scratch"),
		dir:      dir,
	}
	if w := job.Spec.MPIReplicaSpecs[kubeflow.MPIReplicaTypeWorker]; w != nil {
		req.mountsFrom = []*corev1.PodSpec{&w.Template.Spec}
	}
	if r.ports != nil {
		req.injected.set(MetricsPortEnv, fmt.Sprint(r.ports.acquire(job.UID, launcherRanks(job, l))))
		req.injected.set(enginemetrics.HostEnv, "127.0.0.1")
		req.injected.set(enginemetrics.LingerEnv, metricsLinger)
	} else {
		// The operator's port is a pod's own; here it would be all
		// interfaces of a machine that many runs share.
		req.injected.set(MetricsPortEnv, "0")
	}
	return req, nil
}
