package localrunner

import (
	"os/exec"
	"path/filepath"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/labels"
	ctrl "sigs.k8s.io/controller-runtime"
)

// Options configure a Runner.
type Options struct {
	// WorkDir holds the logs (LauncherLog, JobLog), the emptyDir stand-ins
	// and the links to the programs. Required.
	WorkDir string
	// MPIRun, Engine and CLI run where a pod runs mpirun,
	// blastfleet-engine and blastfleet. MPIRun defaults to mpirun on PATH;
	// Engine and CLI to BinDir's, else PATH's.
	MPIRun, Engine, CLI string
	// BinDir, if set, goes on every process's PATH right after the links
	// (e.g. the checkout's bin/ after make build).
	BinDir string
	// Namespace limits the runner to one namespace; empty means all.
	Namespace string
	// JobSelector limits the Jobs run by label; nil runs every Job except
	// the MPI operator's launcher Jobs and Jobs another controller manages.
	JobSelector labels.Selector
	// Env (KEY=VALUE) is added to every process's environment, after the
	// runner's own and before the container's.
	Env []string
	// KillGrace is how long a killed run gets between SIGTERM and SIGKILL
	// (default 5s; a pod's default is 30s).
	KillGrace time.Duration
	// RetryBackoff is the delay before retrying a failed pod or launcher;
	// it doubles per failure up to MaxRetryBackoff. Defaults 1s and 30s
	// (the Job controller's are 10s and 6m).
	RetryBackoff, MaxRetryBackoff time.Duration
	// MetricsPortBase, if positive, gives each MPIJob a block of ports
	// from it, one per rank, in MetricsPortEnv.
	MetricsPortBase int
	// KeepScratch keeps the emptyDir stand-ins after a run, for debugging.
	KeepScratch bool
	// Log defaults to ctrl.Log.WithName("localrunner").
	Log logr.Logger
}

func (o *Options) defaults() {
	if o.KillGrace <= 0 {
		o.KillGrace = 5 * time.Second
	}
	if o.RetryBackoff <= 0 {
		o.RetryBackoff = time.Second
	}
	if o.MaxRetryBackoff < o.RetryBackoff {
		o.MaxRetryBackoff = max(30*time.Second, o.RetryBackoff)
	}
	if o.Log.GetSink() == nil {
		o.Log = ctrl.Log.WithName("localrunner")
	}
	if o.MPIRun == "" {
		o.MPIRun, _ = exec.LookPath(mpirunName) // missing: an MPIJob's run fails to start, saying so
	}
	for _, p := range []*string{&o.Engine, &o.CLI} {
		name := engineName
		if p == &o.CLI {
			name = cliName
		}
		if *p == "" && o.BinDir != "" && isExecutable(filepath.Join(o.BinDir, name)) {
			*p = filepath.Join(o.BinDir, name)
		}
	}
}
