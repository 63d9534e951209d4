package e2e

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/devstack"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// testDown: "blastfleet dev down", run while a campaign's ranks are
// working, leaves no process behind: not the supervisor, not a
// component, not mpirun or an engine rank, nothing whose environment
// carries the stack's marker or whose command line names its directory.
func testDown(t *testing.T, tg *target, db string) {
	tg.localOnly(t, "stops the local stack")
	s := tg.stack
	name := tg.name("e2e-down")
	tg.apply(t, tg.campaignYAML(name, db, queriesKey))
	launcher := s.launcherPID(t, name+"-p0-r0")
	waitFor(t, 30*time.Second, "the ranks of "+name+"-p0-r0", func() (bool, string) {
		// 2 workers of 1 slot (campaignYAML) search, and the master.
		r := ranks(launcher)
		return len(r) == 3, fmt.Sprintf("ranks %v", r)
	})
	// While ranks run: Prometheus lists them as engine targets.
	s.checkPrometheus(t, name+"-p0-r0")
	before := devstack.Stragglers(s.dir)
	st := s.state(t)
	want := map[int]string{st.Supervisor.PID: "supervisor", launcher: "mpirun"}
	for _, c := range st.Components {
		want[c.PID] = c.Name
	}
	for r, pid := range ranks(launcher) {
		want[pid] = fmt.Sprintf("rank %d", r)
	}
	for pid, what := range want {
		if !hasPID(before, pid) {
			t.Errorf("%s (pid %d) does not carry the stack's marker %s: down could miss it", what, pid, devstack.MarkerEnv)
		}
	}
	checkLoopbackOnly(t, before)
	t.Logf("%d processes of the stack before dev down:", len(before))
	for _, p := range before {
		t.Logf("  %s", p)
	}

	t0 := time.Now()
	stdout, stderr, err := tg.run(t, s.cli, "dev", "down", "--dir", s.dir)
	if err != nil {
		t.Fatalf("blastfleet dev down: %v\n%s%s", err, stdout, stderr)
	}
	t.Logf("blastfleet dev down took %s: %s", time.Since(t0).Round(time.Millisecond), strings.TrimSpace(stdout))
	for _, p := range before {
		// A zombie is dead; it waits for its new parent to reap it.
		if _, state, start, ok := testenv.ProcStat(p.PID); ok && start == p.Start && state != "Z" {
			t.Errorf("still running after dev down: %s", p)
		}
	}
	if left := devstack.Stragglers(s.dir); len(left) > 0 {
		t.Errorf("processes with the stack's marker after dev down: %v", left)
	}
	if left := namingDir(s.dir); len(left) > 0 {
		t.Errorf("processes naming %s on their command line after dev down: %v", s.dir, left)
	}
	if _, _, err := tg.run(t, s.cli, "dev", "status", "--dir", s.dir); err == nil {
		t.Error("blastfleet dev status exits 0 after dev down")
	}
}

func hasPID(ps []devstack.Straggler, pid int) bool {
	for _, p := range ps {
		if p.PID == pid {
			return true
		}
	}
	return false
}

// namingDir lists live processes whose command line contains dir.
func namingDir(dir string) []string {
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !strings.Contains(string(b), dir) {
			continue
		}
		if _, state, _, ok := testenv.ProcStat(pid); ok && state != "Z" {
			out = append(out, fmt.Sprintf("pid %d: %s", pid, strings.ReplaceAll(string(b), "\x00", " ")))
		}
	}
	return out
}

func writeFile(path, data string) error { return os.WriteFile(path, []byte(data), 0o644) }
