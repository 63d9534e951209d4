package mpi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/test/support/testenv"
)

func TestLaunched(t *testing.T) {
	for _, v := range append(launcherVars, "SLURM_PROCID", "SLURM_NTASKS") {
		t.Setenv(v, "")
	}
	if Launched() {
		t.Fatal("Launched with no launcher variables")
	}
	// Slurm alone (no PMI) is a plain batch step, not an MPI launch.
	t.Setenv("SLURM_PROCID", "0")
	t.Setenv("SLURM_NTASKS", "4")
	if Launched() {
		t.Fatal("Launched with only SLURM_* set")
	}
	for _, v := range launcherVars {
		t.Run(v, func(t *testing.T) {
			t.Setenv(v, "1")
			if !Launched() {
				t.Errorf("not Launched with %s set", v)
			}
		})
	}
}

// mpis are the MPIs the binding is tested against: Open MPI (the default,
// -tags mpi) and MPICH (-tags mpi,mpich). Each needs its Debian packages
// (hack/install-deps.sh); without them its subtests skip unless
// BLASTFLEET_REQUIRE_REAL=1.
var mpis = []struct {
	name string
	get  func(testing.TB) testenv.MPI
}{{"OpenMPI", testenv.OpenMPI}, {"MPICH", testenv.MPICH}}

// forEachMPI runs f as a subtest per MPI, with name built against it.
func forEachMPI(t *testing.T, name string, f func(t *testing.T, m testenv.MPI, bin string)) {
	for _, mpi := range mpis {
		t.Run(mpi.name, func(t *testing.T) {
			m := mpi.get(t)
			f(t, m, m.Build(t, "./internal/engine/mpi/testdata/"+name))
		})
	}
}

// TestPingPong builds testdata/pingpong against each MPI and runs it with
// 3, 4 and 5 ranks.
func TestPingPong(t *testing.T) {
	forEachMPI(t, "pingpong", func(t *testing.T, m testenv.MPI, bin string) {
		for _, np := range []int{3, 4, 5} {
			t.Run(fmt.Sprintf("np%d", np), func(t *testing.T) {
				out, err := runMPI(t, m, np, 50*time.Second, bin)
				t.Logf("output:\n%s", out)
				if err != nil {
					t.Fatalf("%s -np %d: %v", m.Launcher, np, err)
				}
				for r := range np {
					if !bytes.Contains(out, fmt.Appendf(nil, "rank %d ok\n", r)) {
						t.Errorf("no \"rank %d ok\" line", r)
					}
				}
			})
		}
	})
}

// runMPI runs bin under m's launcher and kills the whole job if it outlives
// timeout, so a deadlock fails the test instead of hanging it.
func runMPI(t *testing.T, m testenv.MPI, np int, timeout time.Duration, bin string, args ...string) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	argv := m.Argv(np, bin, args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), m.Env...)
	// SIGTERM, not SIGKILL: the launcher forwards it to the ranks, which it
	// may run in process groups of their own; a killed launcher leaves
	// them behind.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	var buf bytes.Buffer
	cmd.Stdout = &buf
	cmd.Stderr = &buf
	err := cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("timed out after %v (deadlock?): %w", timeout, errors.Join(err, ctx.Err()))
	}
	return buf.Bytes(), err
}

// TestCloseWhilePeerSends: a rank that closes while others still send it
// large messages must not leave them waiting (the job hung before Close
// drained through a barrier), with either MPI's MPI_Finalize.
func TestCloseWhilePeerSends(t *testing.T) {
	forEachMPI(t, "latesend", func(t *testing.T, m testenv.MPI, bin string) {
		out, err := runMPI(t, m, 3, 40*time.Second, bin)
		if err != nil {
			t.Fatalf("%s -np 3: %v\n%s", m.Launcher, err, out)
		}
		for r := range 3 {
			if !bytes.Contains(out, fmt.Appendf(nil, "rank %d ok\n", r)) {
				t.Errorf("no \"rank %d ok\" line:\n%s", r, out)
			}
		}
	})
}
