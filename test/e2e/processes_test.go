package e2e

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/devstack"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// launcherPID waits until the runner reports mpijob's launcher running
// (the state file is refreshed every 2 s) and returns its pid.
func (s *stack) launcherPID(t *testing.T, mpijob string) int {
	t.Helper()
	var pid int
	waitFor(t, 30*time.Second, "the launcher of "+mpijob+" in the runner's processes", func() (bool, string) {
		for _, p := range s.state(t).Runner.Processes {
			if p.Kind == "MPIJob" && p.Name == mpijob {
				pid = p.PID
				return true, ""
			}
		}
		return false, fmt.Sprintf("%+v", s.state(t).Runner.Processes)
	})
	return pid
}

// ranks maps the MPI rank of each blastfleet-engine process under the
// launcher pid to its pid.
func ranks(launcher int) map[int]int {
	out := map[int]int{}
	for r, p := range testenv.EngineRanks(launcher) {
		out[r] = p.PID
	}
	return out
}

// killLauncher SIGKILLs a partition's launcher process (mpirun), as a
// launcher pod lost with its node.
func (s *stack) killLauncher(t *testing.T, mpijob string) {
	t.Helper()
	pid := s.launcherPID(t, mpijob)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("killing the launcher of %s (pid %d): %v", mpijob, pid, err)
	}
	t.Logf("killed the launcher of %s (mpirun, pid %d)", mpijob, pid)
}

// killWorkerRank SIGKILLs an engine rank other than 0 (the master) of a
// partition: a worker dying under mpirun.
func (s *stack) killWorkerRank(t *testing.T, mpijob string) {
	t.Helper()
	launcher := s.launcherPID(t, mpijob)
	var rank, pid int
	waitFor(t, 20*time.Second, "a worker rank of "+mpijob, func() (bool, string) {
		for r, p := range ranks(launcher) {
			if r != 0 {
				rank, pid = r, p
				return true, ""
			}
		}
		return false, fmt.Sprintf("ranks %v", ranks(launcher))
	})
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("killing rank %d of %s (pid %d): %v", rank, mpijob, pid, err)
	}
	t.Logf("killed rank %d of %s (blastfleet-engine, pid %d, under mpirun pid %d)", rank, mpijob, pid, launcher)
}

// restart SIGKILLs a supervised component and waits until the supervisor
// has started it again and it is healthy.
func (s *stack) restart(t *testing.T, name string) {
	t.Helper()
	old := s.state(t).Component(name)
	if old == nil || old.PID == 0 {
		t.Fatalf("no running %s in the stack's state", name)
	}
	if err := syscall.Kill(old.PID, syscall.SIGKILL); err != nil {
		t.Fatalf("killing %s (pid %d): %v", name, old.PID, err)
	}
	killed := time.Now()
	waitFor(t, 60*time.Second, name+" restarted by the supervisor", func() (bool, string) {
		rep, err := devstack.Status(context.Background(), s.dir)
		if err != nil {
			return false, err.Error()
		}
		for _, h := range rep.Components {
			if h.Name == name {
				return h.PID != old.PID && h.Restarts == old.Restarts+1 && h.Healthy, fmt.Sprintf("%+v", h)
			}
		}
		return false, "not in the state"
	})
	t.Logf("killed %s (pid %d); the supervisor had it healthy again (pid %d) after %s", name, old.PID,
		s.state(t).Component(name).PID, time.Since(killed).Round(time.Millisecond))
}
