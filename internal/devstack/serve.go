package devstack

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/blastfleet/blastfleet/internal/devstack/localrunner"
)

// supervisor is the process "blastfleet dev serve" runs: it owns every
// component of one stack.
type supervisor struct {
	cfg *Config
	p   paths
	log logr.Logger

	mu    sync.Mutex
	st    *State
	comps []*component
}

// component is a child with what the state file says about it.
type component struct {
	*child
	url, health, notes string
}

// Serve runs a stack in this process until ctx ends (SIGTERM), the
// config's MaxLifetime passes or its WatchPID exits, then stops every
// component. It returns an error if the stack could not start.
func Serve(ctx context.Context, cfg *Config) error {
	cfg.defaults()
	if err := cfg.check(); err != nil {
		return err
	}
	p := paths{cfg.Dir}
	for _, d := range []string{p.logs(), p.runner(), p.prometheusDir(), p.minioData(), p.etcdData()} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	unlock, err := lockDir(p.lock())
	if err != nil {
		return err
	}
	defer unlock()
	// Every process started from here on carries the marker (Down finds
	// stragglers by it), the runner's launchers and ranks included.
	if err := os.Setenv(MarkerEnv, cfg.Dir); err != nil {
		return err
	}
	log := funcr.New(func(prefix, args string) {
		fmt.Printf("%s %s %s\n", time.Now().Format("15:04:05.000"), prefix, args)
	}, funcr.Options{})
	ctrl.SetLogger(log)
	self := procOf(os.Getpid())
	self.Log = p.supervisorLog()
	s := &supervisor{cfg: cfg, p: p, log: log, st: &State{
		Dir: cfg.Dir, Phase: PhaseStarting, Supervisor: self, StartedAt: time.Now(),
		Kubeconfig: p.kubeconfig(), Context: contextName,
	}}
	s.update(nil)

	runCtx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var runner *localrunner.Runner
	if cfg.Cluster != nil {
		err = s.startCluster(ctx, runCtx)
	} else {
		runner, err = s.start(ctx, runCtx)
	}
	if err != nil {
		s.step("start failed: %v", err)
		s.stopAll(runner)
		s.update(func(st *State) { st.Phase, st.Message, st.StoppedAt = PhaseFailed, err.Error(), time.Now() })
		return err
	}
	s.update(func(st *State) { st.Phase, st.Message, st.ReadyAt = PhaseReady, "", time.Now() })
	s.step("ready")

	reason := s.waitForEnd(ctx)
	s.update(func(st *State) { st.Phase, st.Message = PhaseStopping, reason })
	s.step("stopping: %s", reason)
	cancel() // supervision and the garbage collector end first
	s.stopAll(runner)
	s.update(func(st *State) {
		st.Phase, st.StoppedAt, st.Runner.Processes = PhaseStopped, time.Now(), nil
	})
	s.step("stopped")
	return nil
}

// waitForEnd blocks until the stack should stop and says why.
func (s *supervisor) waitForEnd(ctx context.Context) string {
	var lifetime <-chan time.Time
	if d := s.cfg.MaxLifetime.D(); d > 0 {
		lifetime = time.After(d)
	}
	var watched Proc
	if s.cfg.WatchPID > 0 {
		watched = procOf(s.cfg.WatchPID)
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return "asked to stop"
		case <-lifetime:
			return fmt.Sprintf("its maximum lifetime of %s passed", s.cfg.MaxLifetime.D())
		case <-tick.C:
			if s.cfg.WatchPID > 0 && !watched.alive() {
				return fmt.Sprintf("process %d, which it was started for, is gone", s.cfg.WatchPID)
			}
		}
	}
}

// stopAll stops the runner (and so every MPIJob and Job process) first,
// then the components in reverse order of start.
func (s *supervisor) stopAll(runner *localrunner.Runner) {
	if s.cfg.Cluster != nil {
		s.stopCluster()
		return
	}
	if runner != nil {
		s.step("stopping the local runner and the processes it runs")
		runner.Stop()
	}
	s.stopRest()
}

// syncComponents copies the children's pids and restarts to the state.
func (s *supervisor) syncComponents() {
	s.mu.Lock()
	comps := append([]*component(nil), s.comps...)
	s.mu.Unlock()
	var out []Component
	for _, c := range comps {
		proc, restarts, last := c.snapshot()
		out = append(out, Component{Name: c.name, Proc: proc, URL: c.url, HealthURL: c.health, Notes: c.notes, Restarts: restarts, LastExit: last})
	}
	s.update(func(st *State) { st.Components = out })
}

// step records progress in the state (up prints it) and the log.
func (s *supervisor) step(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	fmt.Printf("%s devstack: %s\n", time.Now().Format("15:04:05.000"), msg)
	s.update(func(st *State) { st.Steps = append(st.Steps, Step{At: time.Now(), Message: msg}) })
}

func (s *supervisor) warn(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	s.update(func(st *State) { st.Warnings = append(st.Warnings, msg) })
	s.step("warning: %s", msg)
}

// update changes the state under the lock and writes it.
func (s *supervisor) update(f func(*State)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f != nil {
		f(s.st)
	}
	if err := s.st.write(); err != nil {
		fmt.Fprintln(os.Stderr, "devstack: writing state:", err)
	}
}

// lockDir takes an exclusive lock on path for this process's lifetime:
// a second supervisor on the same directory fails instead of fighting
// over ports and data.
func lockDir(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("another supervisor runs the stack in %s", filepath.Dir(path))
		}
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	return func() { f.Close() }, nil
}
