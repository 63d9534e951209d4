package devstack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"
)

// DownReport says what Down did.
type DownReport struct {
	// WasRunning: a live supervisor was found and stopped.
	WasRunning bool
	// Killed are processes left after the supervisor stopped (or that a
	// crashed stack left), killed by Down.
	Killed []Straggler
	// Purged: the directory was removed.
	Purged bool
}

// Down stops the stack in dir: SIGTERM to the supervisor, which stops
// the runner's processes and every component; SIGKILL if it has not
// exited within timeout; then it kills any process still carrying the
// stack's marker or recorded in its state, and checks none is left.
// With purge it removes dir (only if it is a stack's directory).
func Down(ctx context.Context, dir string, purge bool, timeout time.Duration, progress io.Writer) (*DownReport, error) {
	rep := &DownReport{}
	p := paths{dir}
	st, err := ReadState(dir)
	if err != nil && !errors.Is(err, ErrNoStack) {
		return nil, err
	}
	if st != nil && st.SupervisorAlive() {
		rep.WasRunning = true
		fmt.Fprintf(progress, "Stopping the local stack in %s (supervisor pid %d)\n", dir, st.Supervisor.PID)
		shown := len(st.Steps)
		_ = syscall.Kill(st.Supervisor.PID, syscall.SIGTERM)
		deadline := time.Now().Add(timeout)
		for st.Supervisor.alive() && time.Now().Before(deadline) && ctx.Err() == nil {
			if cur, err := ReadState(dir); err == nil {
				for ; shown < len(cur.Steps); shown++ {
					fmt.Fprintf(progress, "  %s\n", cur.Steps[shown].Message)
				}
			}
			time.Sleep(100 * time.Millisecond)
		}
		if st.Supervisor.alive() {
			fmt.Fprintf(progress, "  the supervisor did not stop within %s: killing it\n", timeout)
			_ = syscall.Kill(st.Supervisor.PID, syscall.SIGKILL)
			waitGone(st.Supervisor, 5*time.Second)
		}
	}
	// Whatever is left: marked processes, and recorded ones (a component
	// that cleared its environment would still be in the state).
	left := Stragglers(dir)
	if st != nil {
		for _, c := range st.Components {
			if c.Proc.alive() && !containsPID(left, c.PID) {
				left = append(left, Straggler{PID: c.PID, Start: c.Start, Cmdline: cmdline(c.PID)})
			}
		}
	}
	if len(left) > 0 {
		fmt.Fprintf(progress, "  killing %d processes left behind\n", len(left))
		rep.Killed = left
		if still := killAll(left, 5*time.Second); len(still) > 0 {
			return rep, fmt.Errorf("processes of the stack survive SIGKILL: %v", still)
		}
	}
	if again := Stragglers(dir); len(again) > 0 {
		return rep, fmt.Errorf("processes of the stack are still running: %v", again)
	}
	// A cluster's supervisor undoes its changes to the machine as it
	// stops; after a crash, this does.
	if cfg, err := LoadConfig(dir); err == nil && cfg.Cluster != nil {
		if err := machineCleanup(p, cfg.Cluster.Bin); err != nil {
			return rep, fmt.Errorf("cleaning up after the cluster: %w", err)
		}
	}
	if st != nil && !purge && st.Phase != PhaseStopped {
		st.Phase, st.StoppedAt, st.Runner.Processes = PhaseStopped, time.Now(), nil
		for i := range st.Components {
			st.Components[i].PID, st.Components[i].Start = 0, ""
		}
		_ = st.write()
	}
	if purge {
		if !isStackDir(p) {
			return rep, fmt.Errorf("not removing %s: it does not look like a stack's directory (no state.json or config.json)", dir)
		}
		if err := os.RemoveAll(dir); err != nil {
			return rep, fmt.Errorf("removing %s: %w", dir, err)
		}
		rep.Purged = true
	}
	return rep, nil
}

func isStackDir(p paths) bool {
	for _, f := range []string{p.state(), p.config()} {
		if _, err := os.Stat(f); err == nil {
			return true
		}
	}
	return false
}

func containsPID(ps []Straggler, pid int) bool {
	for _, p := range ps {
		if p.PID == pid {
			return true
		}
	}
	return false
}
