package localrunner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// jobs is the runner's Job state, guarded by Runner.mu.
type jobs struct {
	runs map[types.NamespacedName]*jobRun
	// finished are Jobs whose terminal status was written, kept until the
	// cache shows it (or the Job is deleted), so a stale read never
	// starts their pods again.
	finished map[types.UID]types.NamespacedName
}

func newJobs() *jobs {
	return &jobs{runs: map[types.NamespacedName]*jobRun{}, finished: map[types.UID]types.NamespacedName{}}
}

func (j *jobs) all() []*jobRun {
	out := make([]*jobRun, 0, len(j.runs))
	for _, run := range j.runs {
		out = append(out, run)
	}
	return out
}

// jobRun is what the Job controller would learn from a Job's pods: which
// run, which succeeded, which failed and how often. Guarded by Runner.mu.
type jobRun struct {
	key     types.NamespacedName
	uid     types.UID
	indexed bool
	// Spec, read when the run is made (completions, the limits and the
	// completion mode are immutable once a Job has started).
	completions      int
	backoffLimit     int32
	perIndex         *int32
	maxFailedIndexes *int32

	active         map[int]*podRun // by completion index, or by slot for a NonIndexed Job
	succeeded      map[int]bool    // Indexed
	succeededCount int32           // NonIndexed
	failed         int32
	indexFailures  map[int]int32
	failedIndexes  map[int]bool
	retryAt        map[int]time.Time // per index with backoffLimitPerIndex, else at -1
	lastFailure    string
	pods           int          // pods started, for pod names
	logged         map[int]bool // indexes (slots) whose log this run has begun
	// finish is the interim condition (SuccessCriteriaMet or
	// FailureTarget) once the outcome is decided.
	finish *batchv1.JobCondition
}

// podRun is one stand-in pod.
type podRun struct {
	index  int
	name   string
	proc   *proc
	killed bool // killed by the runner: its exit counts as neither success nor failure
}

// newJobRun starts from the Job's status, so a restarted runner carries
// on where the last one stopped. Pods that were active then are gone:
// they count as failed, as pods lost with their node would.
func newJobRun(job *batchv1.Job) *jobRun {
	run := &jobRun{
		key:     types.NamespacedName{Namespace: job.Namespace, Name: job.Name},
		uid:     job.UID,
		indexed: ptr.Deref(job.Spec.CompletionMode, batchv1.NonIndexedCompletion) == batchv1.IndexedCompletion,
		// completions unset (a work queue) runs like completions 1.
		completions:      int(ptr.Deref(job.Spec.Completions, 1)),
		backoffLimit:     ptr.Deref(job.Spec.BackoffLimit, 6),
		perIndex:         job.Spec.BackoffLimitPerIndex,
		maxFailedIndexes: job.Spec.MaxFailedIndexes,
		active:           map[int]*podRun{},
		indexFailures:    map[int]int32{},
		failedIndexes:    map[int]bool{},
		retryAt:          map[int]time.Time{},
		logged:           map[int]bool{},
	}
	if run.perIndex != nil && job.Spec.BackoffLimit == nil {
		run.backoffLimit = math.MaxInt32
	}
	st := job.Status
	run.succeeded, _ = parseIndexes(st.CompletedIndexes, run.completions)
	run.succeededCount = st.Succeeded
	if st.FailedIndexes != nil {
		run.failedIndexes, _ = parseIndexes(*st.FailedIndexes, run.completions)
	}
	run.failed = st.Failed + st.Active
	return run
}

func (run *jobRun) counts() (active, terminating int32) {
	for _, p := range run.active {
		if p.killed {
			terminating++
		} else {
			active++
		}
	}
	return active, terminating
}

func (run *jobRun) succeededPods() int32 {
	if run.indexed {
		return int32(len(run.succeeded))
	}
	return run.succeededCount
}

// toStart lists the indexes (or slots) to start now within parallelism,
// and how long until a held-back retry may start.
func (run *jobRun) toStart(parallelism int, now time.Time) (idx []int, wait time.Duration) {
	active, _ := run.counts()
	room := parallelism - int(active)
	held := func(key int) bool {
		if t, ok := run.retryAt[key]; ok && now.Before(t) {
			if wait == 0 || t.Sub(now) < wait {
				wait = t.Sub(now)
			}
			return true
		}
		return false
	}
	if run.indexed {
		for i := 0; i < run.completions && len(idx) < room; i++ {
			if run.succeeded[i] || run.failedIndexes[i] || run.active[i] != nil {
				continue
			}
			key := -1
			if run.perIndex != nil {
				key = i
			}
			if !held(key) {
				idx = append(idx, i)
			}
		}
		return idx, wait
	}
	need := run.completions - int(run.succeededCount) - int(active)
	if need <= 0 || room <= 0 || held(-1) {
		return nil, wait
	}
	for slot := 0; len(idx) < min(room, need); slot++ {
		if run.active[slot] == nil {
			idx = append(idx, slot)
		}
	}
	return idx, wait
}

// startPods starts what toStart allows. It returns when to look again (a
// retry held back by backoff, or a pod that cannot start yet).
func (r *Runner) startPods(ctx context.Context, run *jobRun, job *batchv1.Job) time.Duration {
	r.mu.Lock()
	idx, wait := run.toStart(int(ptr.Deref(job.Spec.Parallelism, 1)), time.Now())
	r.mu.Unlock()
	for _, i := range idx {
		pod, req := r.jobPod(run, job, i)
		l, err := r.prepare(ctx, req)
		if errors.Is(err, errPending) {
			r.log.Info("pod cannot start yet", "job", run.key, "pod", pod.name, "reason", err.Error())
			return pendingRetry
		}
		logPath := JobLog(r.opts.WorkDir, job.Namespace, job.Name, run.indexed, i)
		if err == nil {
			r.mu.Lock()
			first := !run.logged[i]
			run.logged[i] = true
			r.mu.Unlock()
			if !first {
				appendLine(logPath, fmt.Sprintf("--- localrunner: pod %s, %s ---", pod.name, time.Now().Format(time.RFC3339)))
			}
			pod.proc, err = startProc(l, logPath, first, r.opts.KeepScratch)
		}
		r.mu.Lock()
		if err != nil {
			appendLine(logPath, "localrunner: "+err.Error())
			r.recordFailure(run, i, fmt.Sprintf("pod %s could not start: %v", pod.name, err))
			r.mu.Unlock()
			continue
		}
		if r.stopping {
			pod.killed = true
		}
		run.active[i] = pod
		r.wg.Add(1)
		r.mu.Unlock()
		go r.watchPod(run, pod)
		if pod.killed {
			go pod.proc.kill(r.opts.KillGrace)
		}
	}
	return wait
}

// jobPod is the stand-in for the pod the Job controller would create
// for index i (or slot i of a NonIndexed Job).
func (r *Runner) jobPod(run *jobRun, job *batchv1.Job, i int) (*podRun, podRequest) {
	r.mu.Lock()
	run.pods++
	name := fmt.Sprintf("%s-%d-%d", job.Name, i, run.pods)
	r.mu.Unlock()
	pod := &podRun{index: i, name: name}
	labels := map[string]string{"job-name": job.Name, "batch.kubernetes.io/job-name": job.Name,
		"controller-uid": string(job.UID), "batch.kubernetes.io/controller-uid": string(job.UID)}
	for k, v := range job.Spec.Template.Labels {
		labels[k] = v
	}
	annotations := map[string]string{}
	for k, v := range job.Spec.Template.Annotations {
		annotations[k] = v
	}
	var extra []corev1.EnvVar
	if run.indexed {
		labels[batchv1.JobCompletionIndexAnnotation] = strconv.Itoa(i)
		annotations[batchv1.JobCompletionIndexAnnotation] = strconv.Itoa(i)
		extra = append(extra, corev1.EnvVar{Name: "JOB_COMPLETION_INDEX", Value: strconv.Itoa(i)})
	}
	dir := runDir(r.opts.WorkDir, job.Namespace, job.Name)
	req := podRequest{
		meta:     podMeta{Namespace: job.Namespace, Name: name, Labels: labels, Annotations: annotations, ServiceAccount: job.Spec.Template.Spec.ServiceAccountName},
		spec:     &job.Spec.Template.Spec,
		extraEnv: extra,
		scratch:  filepath.Join(dir, "scratch", name),
		dir:      dir,
	}
	return pod, req
}

// watchPod records how a pod ended.
func (r *Runner) watchPod(run *jobRun, pod *podRun) {
	defer r.wg.Done()
	<-pod.proc.done
	r.mu.Lock()
	if run.active[pod.index] == pod {
		delete(run.active, pod.index)
	}
	switch {
	case pod.killed:
	case pod.proc.exitCode == 0:
		if run.indexed {
			run.succeeded[pod.index] = true
		} else {
			run.succeededCount++
		}
	default:
		r.recordFailure(run, pod.index, pod.proc.describe("pod "+pod.name))
	}
	r.mu.Unlock()
	r.notify(r.jobEvents, run.key)
}

// recordFailure counts a failed pod (Runner.mu held) and holds back its
// retry: per index with backoffLimitPerIndex, else for the whole Job.
func (r *Runner) recordFailure(run *jobRun, i int, msg string) {
	run.failed++
	run.indexFailures[i]++
	run.lastFailure = msg
	key, n := -1, run.failed
	if run.indexed && run.perIndex != nil {
		key, n = i, run.indexFailures[i]
		if n > *run.perIndex {
			run.failedIndexes[i] = true
		}
	}
	run.retryAt[key] = time.Now().Add(r.backoff(n))
	r.log.Info("pod failed", "job", run.key, "index", i, "failed", run.failed)
}

// stopPods kills a Job's running pods; their ends are not counted.
func (r *Runner) stopPods(run *jobRun, reason string) {
	r.mu.Lock()
	var kill []*podRun
	for _, p := range run.active {
		if !p.killed {
			p.killed = true
			kill = append(kill, p)
		}
	}
	r.mu.Unlock()
	for _, p := range kill {
		r.log.Info("killing pod", "job", run.key, "pod", p.name, "reason", reason)
		go p.proc.kill(r.opts.KillGrace)
	}
}
