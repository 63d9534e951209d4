package mpi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/testenv"
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

// TestPingPong builds testdata/pingpong with -tags mpi and runs it under
// mpirun with 3, 4 and 5 ranks. It needs OpenMPI (openmpi-bin and
// libopenmpi-dev); without mpirun it skips unless BLASTFLEET_REQUIRE_REAL=1.
func TestPingPong(t *testing.T) {
	mpirun, bin := testProgram(t, "pingpong")

	for _, np := range []int{3, 4, 5} {
		t.Run(fmt.Sprintf("np%d", np), func(t *testing.T) {
			out, err := runMPI(t, mpirun, np, 50*time.Second, bin)
			t.Logf("output:\n%s", out)
			if err != nil {
				t.Fatalf("mpirun -np %d: %v", np, err)
			}
			for r := range np {
				if !bytes.Contains(out, fmt.Appendf(nil, "rank %d ok\n", r)) {
					t.Errorf("no \"rank %d ok\" line", r)
				}
			}
		})
	}
}

// runMPI runs bin under mpirun and kills the whole job if it outlives
// timeout, so a deadlock fails the test instead of hanging it.
func runMPI(t *testing.T, mpirun string, np int, timeout time.Duration, bin string, args ...string) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	argv := append([]string{"-np", fmt.Sprint(np), "--oversubscribe", "--allow-run-as-root", bin}, args...)
	cmd := exec.CommandContext(ctx, mpirun, argv...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(),
		// More ranks than cores: waiting ranks yield instead of spinning.
		"OMPI_MCA_mpi_yield_when_idle=1",
		// Containers usually forbid the ptrace-based single-copy path.
		"OMPI_MCA_btl_vader_single_copy_mechanism=none",
	)
	// SIGTERM, not SIGKILL: mpirun forwards it to the ranks, which it runs
	// in process groups of their own; a killed mpirun leaves them behind.
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

// testProgram builds ./internal/mpi/testdata/<name> with -tags mpi and
// returns mpirun's path and the program's; without OpenMPI it skips (or
// fails, under BLASTFLEET_REQUIRE_REAL=1).
func testProgram(t *testing.T, name string) (mpirun, bin string) {
	t.Helper()
	testenv.RequireTools(t, "mpirun", "go")
	mpirun, _ = exec.LookPath("mpirun")
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin = filepath.Join(t.TempDir(), name)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, "go", "build", "-tags", "mpi", "-o", bin, "./internal/mpi/testdata/"+name)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -tags mpi: %v\n%s", err, out)
	}
	return mpirun, bin
}

// TestCloseWhilePeerSends: a rank that closes while others still send it
// large messages must not leave them waiting (the job hung before Close
// drained through a barrier).
func TestCloseWhilePeerSends(t *testing.T) {
	mpirun, bin := testProgram(t, "latesend")
	out, err := runMPI(t, mpirun, 3, 40*time.Second, bin)
	if err != nil {
		t.Fatalf("mpirun -np 3: %v\n%s", err, out)
	}
	for r := range 3 {
		if !bytes.Contains(out, fmt.Appendf(nil, "rank %d ok\n", r)) {
			t.Errorf("no \"rank %d ok\" line:\n%s", r, out)
		}
	}
}
