package localrunner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// mpiJobs is the runner's MPIJob state, guarded by Runner.mu.
type mpiJobs struct {
	runs map[types.NamespacedName]*launcherRun
	// results are launchers that ended on their own, kept until the
	// MPIJob is seen finished (or deleted): a stale cache must not get
	// the launcher run a second time.
	results map[types.UID]*launcherResult
}

func newMPIJobs() *mpiJobs {
	return &mpiJobs{runs: map[types.NamespacedName]*launcherRun{}, results: map[types.UID]*launcherResult{}}
}

func (m *mpiJobs) all() []*launcherRun {
	out := make([]*launcherRun, 0, len(m.runs))
	for _, run := range m.runs {
		out = append(out, run)
	}
	return out
}

// launcherRun is one MPIJob's launcher, across its retries.
type launcherRun struct {
	key    types.NamespacedName
	uid    types.UID
	ctx    context.Context
	cancel context.CancelFunc
	once   sync.Once
	reason string // why it was stopped
	done   chan struct{}
	// Guarded by Runner.mu.
	proc     *proc
	failures int32
}

type launcherResult struct {
	key       types.NamespacedName
	succeeded bool
	reason    string
	message   string
	failures  int32
	at        time.Time
}

// stop kills the launcher (asynchronously); its result is not reported.
func (run *launcherRun) stop(reason string) {
	run.once.Do(func() {
		run.reason = reason
		run.cancel()
	})
}

func (run *launcherRun) stopped() bool { return run.ctx.Err() != nil }

// startLauncher prepares the launcher and hands it to a goroutine that
// owns it from then on. A pod that cannot start yet (errPending) starts
// nothing; any other problem is a failed attempt, as a pod whose
// container cannot start fails.
func (r *Runner) startLauncher(ctx context.Context, job *kubeflow.MPIJob) (*launcherRun, error) {
	req, err := r.launcherPod(job)
	if err != nil {
		return nil, err
	}
	l, prepErr := r.prepare(ctx, req)
	if errors.Is(prepErr, errPending) {
		if r.ports != nil {
			r.ports.release(job.UID)
		}
		return nil, prepErr
	}
	key := types.NamespacedName{Namespace: job.Namespace, Name: job.Name}
	rctx, cancel := context.WithCancel(context.Background())
	run := &launcherRun{key: key, uid: job.UID, ctx: rctx, cancel: cancel, done: make(chan struct{})}
	r.mu.Lock()
	if r.stopping {
		r.mu.Unlock()
		cancel()
		return nil, errors.New("the runner is stopping")
	}
	r.mpi.runs[key] = run
	r.wg.Add(1)
	r.mu.Unlock()
	backoffLimit := ptr.Deref(job.Spec.RunPolicy.BackoffLimit, 6) // the launcher Job's default
	go r.superviseLauncher(run, req, l, prepErr, backoffLimit)
	return run, nil
}

// superviseLauncher runs attempts until one succeeds, backoffLimit
// failures have been retried, or the run is stopped.
func (r *Runner) superviseLauncher(run *launcherRun, req podRequest, l *launch, prepErr error, backoffLimit int32) {
	log := r.log.WithValues("mpijob", run.key)
	logPath := LauncherLog(r.opts.WorkDir, run.key.Namespace, run.key.Name)
	var res *launcherResult
	defer func() {
		r.mu.Lock()
		if r.mpi.runs[run.key] == run {
			delete(r.mpi.runs, run.key)
		}
		if res != nil && !run.stopped() {
			r.mpi.results[run.uid] = res
		}
		r.mu.Unlock()
		if r.ports != nil {
			r.ports.release(run.uid)
		}
		if run.stopped() {
			log.Info("launcher stopped", "reason", run.reason)
		}
		close(run.done)
		r.wg.Done()
		r.notify(r.mpiEvents, run.key)
	}()
	for attempt := 1; ; attempt++ {
		if attempt > 1 {
			r.mu.Lock()
			failures := run.failures
			r.mu.Unlock()
			select {
			case <-run.ctx.Done():
				return
			case <-time.After(r.backoff(failures)):
			}
			if l, prepErr = r.prepare(run.ctx, req); errors.Is(prepErr, errPending) {
				log.Info("launcher cannot start yet", "reason", prepErr.Error())
				attempt--
				continue
			}
			appendLine(logPath, fmt.Sprintf("--- localrunner: launcher attempt %d, %s ---", attempt, time.Now().Format(time.RFC3339)))
		}
		var msg string
		var p *proc
		if prepErr == nil {
			p, prepErr = startProc(l, logPath, attempt == 1, r.opts.KeepScratch)
		}
		if prepErr != nil {
			msg = "the launcher could not start: " + prepErr.Error()
			appendLine(logPath, "localrunner: "+msg)
		} else {
			r.mu.Lock()
			run.proc = p
			r.mu.Unlock()
			select {
			case <-p.done:
			case <-run.ctx.Done():
				p.kill(r.opts.KillGrace)
				return
			}
			if p.exitCode == 0 {
				res = &launcherResult{key: run.key, succeeded: true, at: p.ended, failures: run.failureCount(r)}
				log.Info("launcher succeeded")
				return
			}
			msg = p.describe("the launcher")
		}
		r.mu.Lock()
		run.failures++
		failures := run.failures
		r.mu.Unlock()
		log.Info("launcher failed", "attempt", attempt, "failures", failures, "backoffLimit", backoffLimit)
		if failures > backoffLimit {
			res = &launcherResult{key: run.key, reason: backoffLimitExceeded, failures: failures, at: time.Now(),
				message: "Job has reached the specified backoff limit: " + msg}
			return
		}
		r.notify(r.mpiEvents, run.key)
	}
}

func (run *launcherRun) failureCount(r *Runner) int32 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return run.failures
}

// appendLine marks a retry in a log that earlier attempts wrote.
func appendLine(path, line string) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return
	}
	fmt.Fprintln(f, line)
	f.Close()
}
