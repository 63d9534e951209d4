package devstack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// upTimeout bounds how long Up waits for the whole stack.
const upTimeout = 5 * time.Minute

// Up starts the stack described by cfg (Resolve it first) in a detached
// supervisor ("<cfg.Dev> serve --dir <cfg.Dir>") and waits until it
// is ready, printing each step to progress. If a stack already runs in
// cfg.Dir it says so (already is true) and starts nothing. Processes a
// crashed stack left behind are killed first.
func Up(ctx context.Context, cfg *Config, progress io.Writer) (st *State, already bool, err error) {
	cfg.defaults()
	if err := cfg.check(); err != nil {
		return nil, false, fmt.Errorf("cannot start the local stack: %w", err)
	}
	p := paths{cfg.Dir}
	if err := os.MkdirAll(p.logs(), 0o755); err != nil {
		return nil, false, err
	}
	if old, err := ReadState(cfg.Dir); err == nil && old.SupervisorAlive() {
		switch old.Phase {
		case PhaseReady:
			return old, true, nil
		case PhaseStarting:
			fmt.Fprintf(progress, "The stack in %s is starting already (supervisor pid %d); following it.\n", cfg.Dir, old.Supervisor.PID)
			st, err := follow(ctx, cfg.Dir, old.Supervisor.PID, nil, progress, 0)
			return st, true, err
		default: // stopping: let it finish, then start anew
			waitGone(old.Supervisor, 60*time.Second)
		}
	}
	if left := Stragglers(cfg.Dir); len(left) > 0 {
		fmt.Fprintf(progress, "Killing %d processes an earlier stack in %s left behind\n", len(left), cfg.Dir)
		if still := killAll(left, 5*time.Second); len(still) > 0 {
			return nil, false, fmt.Errorf("processes of an earlier stack survive SIGKILL: %v", still)
		}
	}
	if err := writeJSON(p.config(), cfg, 0o600); err != nil {
		return nil, false, fmt.Errorf("writing the stack config: %w", err)
	}
	logf, err := os.OpenFile(p.supervisorLog(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, false, err
	}
	defer logf.Close()
	fmt.Fprintf(logf, "--- devstack: supervisor starting at %s ---\n", time.Now().Format(time.RFC3339))
	cmd := exec.Command(cfg.Dev, "serve", "--dir", cfg.Dir)
	cmd.Env = append(os.Environ(), MarkerEnv+"="+cfg.Dir) // down finds it, and all it starts, by this
	cmd.Stdout, cmd.Stderr = logf, logf
	// Detached: a session of its own, so closing the terminal or Ctrl-C
	// in it does not stop the stack; only "dev down" (SIGTERM) does.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, false, fmt.Errorf("starting the supervisor: %w", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }() // reaped if it exits while we run
	fmt.Fprintf(progress, "Starting the local stack in %s (supervisor pid %d, its log %s)\n", cfg.Dir, cmd.Process.Pid, p.supervisorLog())
	timeout := upTimeout
	if cfg.Cluster != nil {
		timeout = 2 * upTimeout // images to import, pods to start
	}
	st, err = follow(ctx, cfg.Dir, cmd.Process.Pid, exited, progress, timeout)
	return st, false, err
}

// follow prints the supervisor's steps until the stack is ready, failed,
// or the supervisor is gone.
func follow(ctx context.Context, dir string, pid int, exited <-chan struct{}, progress io.Writer, timeout time.Duration) (*State, error) {
	if timeout == 0 {
		timeout = upTimeout
	}
	deadline := time.Now().Add(timeout)
	shown := 0
	logPath := paths{dir}.supervisorLog()
	for {
		st, err := ReadState(dir)
		if err == nil && st.Supervisor.PID == pid {
			for ; shown < len(st.Steps); shown++ {
				s := st.Steps[shown]
				fmt.Fprintf(progress, "  [%5.1fs] %s\n", s.At.Sub(st.StartedAt).Seconds(), s.Message)
			}
			switch st.Phase {
			case PhaseReady:
				return st, nil
			case PhaseFailed, PhaseStopped:
				return st, fmt.Errorf("the local stack did not start: %s; supervisor log %s:\n%s", st.Message, logPath, tail(logPath, 20))
			}
		}
		select {
		case <-exited:
			if st, err := ReadState(dir); err == nil && st.Supervisor.PID == pid && st.Phase == PhaseReady {
				return st, nil
			}
			return nil, fmt.Errorf("the supervisor exited while starting; its log %s:\n%s", logPath, tail(logPath, 20))
		case <-ctx.Done():
			return nil, errors.New("interrupted: the stack goes on starting in the background (blastfleet dev status shows it, blastfleet dev down stops it)")
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the local stack is not ready after %s; see %s (blastfleet dev down stops it)", timeout, logPath)
		}
	}
}

// waitGone waits until p has exited or d passed.
func waitGone(p Proc, d time.Duration) bool {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if !p.alive() {
			return true
		}
	}
	return !p.alive()
}
