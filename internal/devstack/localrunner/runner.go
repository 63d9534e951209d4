package localrunner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/blastfleet/blastfleet/internal/operator/kubescheme"
)

// Runner runs MPIJobs and Jobs as local processes. It runs once: after
// Stop, make a new one.
type Runner struct {
	opts   Options
	log    logr.Logger
	bin    string // the links' directory
	ports  *portBlocks
	client client.Client
	reader client.Reader // uncached, for Secrets and ConfigMaps

	mu       sync.Mutex
	stopping bool
	mpi      *mpiJobs
	jobs     *jobs
	wg       sync.WaitGroup // every goroutine owning a process
	quit     chan struct{}

	mpiEvents, jobEvents chan event.GenericEvent

	// Set by Start: the manager the runner made for itself.
	cancel  context.CancelFunc
	mgrDone chan error
}

// New checks the options and prepares the work dir.
func New(o Options) (*Runner, error) {
	if o.WorkDir == "" {
		return nil, errors.New("localrunner: WorkDir is required")
	}
	wd, err := filepath.Abs(o.WorkDir)
	if err != nil {
		return nil, fmt.Errorf("localrunner: work dir: %w", err)
	}
	o.WorkDir = wd
	o.defaults()
	r := &Runner{
		opts: o, log: o.Log, bin: filepath.Join(o.WorkDir, ".bin"),
		mpi: newMPIJobs(), jobs: newJobs(), quit: make(chan struct{}),
		mpiEvents: make(chan event.GenericEvent, 256), jobEvents: make(chan event.GenericEvent, 256),
	}
	if o.MetricsPortBase > 0 {
		r.ports = newPortBlocks(o.MetricsPortBase)
	}
	if err := makeBinDir(r.bin, map[string]string{mpirunName: o.MPIRun, engineName: o.Engine, cliName: o.CLI}); err != nil {
		return nil, fmt.Errorf("localrunner: %w", err)
	}
	return r, nil
}

// SetupWithManager registers the MPIJob and Job reconcilers with mgr
// (whose scheme must hold batch/v1 and kubeflow.org/v2beta1) and kills
// every process when mgr stops.
func (r *Runner) SetupWithManager(mgr ctrl.Manager) error {
	r.client, r.reader = mgr.GetClient(), mgr.GetAPIReader()
	if err := r.setupMPIJobs(mgr); err != nil {
		return fmt.Errorf("localrunner: MPIJob controller: %w", err)
	}
	if err := r.setupJobs(mgr); err != nil {
		return fmt.Errorf("localrunner: Job controller: %w", err)
	}
	return mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		<-ctx.Done()
		r.killAll()
		return nil
	}))
}

// Start runs the runner with a manager of its own against cfg, returning
// once its caches are in sync. Stop ends it.
func (r *Runner) Start(cfg *rest.Config) error {
	mopts := ctrl.Options{
		Scheme:                 kubescheme.New(),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Logger:                 r.log,
	}
	if r.opts.Namespace != "" {
		mopts.Cache.DefaultNamespaces = map[string]cache.Config{r.opts.Namespace: {}}
	}
	mgr, err := ctrl.NewManager(cfg, mopts)
	if err != nil {
		return fmt.Errorf("localrunner: manager: %w", err)
	}
	if err := r.SetupWithManager(mgr); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel, r.mgrDone = cancel, make(chan error, 1)
	go func() { r.mgrDone <- mgr.Start(ctx) }()
	synced := make(chan bool, 1)
	go func() { synced <- mgr.GetCache().WaitForCacheSync(ctx) }()
	select {
	case ok := <-synced:
		if !ok {
			r.Stop()
			return errors.New("localrunner: caches did not sync")
		}
		return nil
	case err := <-r.mgrDone:
		r.mgrDone <- err
		r.Stop()
		return fmt.Errorf("localrunner: manager: %w", err)
	}
}

// Run is Start, then Stop once ctx is done (a CLI command's shape).
func (r *Runner) Run(ctx context.Context, cfg *rest.Config) error {
	if err := r.Start(cfg); err != nil {
		return err
	}
	var err error
	select {
	case <-ctx.Done():
	case err = <-r.mgrDone:
		r.mgrDone <- err
	}
	r.Stop()
	return err
}

// Stop kills every process the runner started and waits for them. Runs
// cut short are not reported as failed: a runner started later marks
// such an MPIJob LauncherLost and counts such a Job's pods as failed.
func (r *Runner) Stop() {
	if r.cancel != nil {
		r.cancel()
		<-r.mgrDone
		r.mgrDone <- nil
	}
	r.killAll()
}

func (r *Runner) killAll() {
	r.mu.Lock()
	if !r.stopping {
		r.stopping = true
		close(r.quit)
	}
	mpiRuns := r.mpi.all()
	jobRuns := r.jobs.all()
	r.mu.Unlock()
	for _, run := range mpiRuns {
		run.stop("runner stopped")
	}
	for _, run := range jobRuns {
		r.stopPods(run, "runner stopped")
	}
	r.wg.Wait()
}

// notify makes the reconciler of ch look at key again (a process started
// or ended).
func (r *Runner) notify(ch chan event.GenericEvent, key types.NamespacedName) {
	ev := event.GenericEvent{Object: &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}}
	select {
	case ch <- ev:
	default:
		go func() {
			select {
			case ch <- ev:
			case <-r.quit:
			}
		}()
	}
}

// backoff is the delay before retry number failures (1, 2, ...).
func (r *Runner) backoff(failures int32) time.Duration {
	d := r.opts.RetryBackoff
	for i := int32(1); i < failures && d < r.opts.MaxRetryBackoff; i++ {
		d *= 2
	}
	return min(d, r.opts.MaxRetryBackoff)
}

// Process is one running process, for status displays and tests.
type Process struct {
	Kind      string // "MPIJob" or "Job"
	Namespace string
	Name      string
	Index     int // completion index or pod slot of a Job; -1 for a launcher
	PID       int
	Log       string
	Started   time.Time
	// MetricsPortBase and MetricsPorts are an MPIJob's block of metrics
	// ports (rank r on base+r), when Options.MetricsPortBase is set: what
	// a Prometheus file_sd config lists as the ranks' targets.
	MetricsPortBase, MetricsPorts int
}

// Processes lists the processes running now.
func (r *Runner) Processes() []Process {
	r.mu.Lock()
	var out []Process
	for _, run := range r.mpi.runs {
		if p := run.proc; p != nil && !p.exited() {
			pr := Process{Kind: "MPIJob", Namespace: run.key.Namespace, Name: run.key.Name, Index: -1, PID: p.pid, Log: p.log, Started: p.started}
			if r.ports != nil {
				pr.MetricsPortBase, pr.MetricsPorts, _ = r.ports.lookup(run.uid)
			}
			out = append(out, pr)
		}
	}
	for _, run := range r.jobs.runs {
		for idx, pod := range run.active {
			out = append(out, Process{Kind: "Job", Namespace: run.key.Namespace, Name: run.key.Name, Index: idx, PID: pod.proc.pid, Log: pod.proc.log, Started: pod.proc.started})
		}
	}
	r.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Kind+a.Namespace+a.Name != b.Kind+b.Namespace+b.Name {
			return a.Kind+"/"+a.Namespace+"/"+a.Name < b.Kind+"/"+b.Namespace+"/"+b.Name
		}
		return a.Index < b.Index
	})
	return out
}

// inScope reports whether the runner looks after namespace.
func (r *Runner) inScope(namespace string) bool {
	return r.opts.Namespace == "" || r.opts.Namespace == namespace
}

// hostEnv is every process's starting environment.
func (r *Runner) hostEnv() *envList {
	env := newEnvList()
	env.setAll(os.Environ())
	env.setAll(r.opts.Env)
	return env
}
