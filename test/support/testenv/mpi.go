package testenv

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// MPI is one MPI implementation a test builds MPI programs against and
// launches them with. Debian installs both Open MPI and MPICH, and points
// /usr/bin/mpirun at one of them through alternatives (Open MPI's, by
// priority, unless an admin chose otherwise): tests name each launcher by
// its own path, never through that alternative.
type MPI struct {
	Name     string   // as mpi.Header prints it: "Open MPI", "MPICH"
	Tags     string   // go build -tags
	Launcher string   // absolute path of its mpiexec
	Env      []string // what it needs here, added to the test's environment
	args     func(np int) []string
}

// Argv is the command line that starts np ranks of program with args.
func (m MPI) Argv(np int, program string, args ...string) []string {
	argv := append([]string{m.Launcher}, m.args(np)...)
	return append(append(argv, program), args...)
}

// OpenMPIRun is Open MPI's mpirun: mpirun.openmpi where Debian names it
// so (whatever the mpirun alternative points at), else mpirun.
func OpenMPIRun() string {
	if p, err := exec.LookPath("mpirun.openmpi"); err == nil {
		return p
	}
	return "mpirun"
}

// OpenMPI is Open MPI, the engine's default (-tags mpi), launched by
// OpenMPIRun.
func OpenMPI(t testing.TB) MPI {
	t.Helper()
	launcher := lookMPI(t, OpenMPIRun())
	return MPI{Name: "Open MPI", Tags: "mpi", Launcher: launcher, Env: MPIEnv,
		args: func(np int) []string {
			return []string{"-np", fmt.Sprint(np), "--oversubscribe", "--allow-run-as-root"}
		}}
}

// MPICH is MPICH (-tags mpi,mpich; Debian's mpich and libmpich-dev) with
// its Hydra mpiexec, all on this machine: Hydra forks its proxy rather than
// ssh to 127.0.0.1, and the ranks (ch4 over UCX in Debian's build) use
// shared memory only, so they open no TCP listener. Hydra's own control
// port still listens on every address, as Open MPI's mpirun does.
func MPICH(t testing.TB) MPI {
	t.Helper()
	launcher := lookMPI(t, "mpiexec.hydra", "mpiexec.mpich")
	if err := exec.Command("pkg-config", "--exists", "mpich").Run(); err != nil {
		skipOrFatal(t, "MPICH's headers are not installed (libmpich-dev, hack/install-deps.sh): pkg-config mpich: %v", err)
	}
	return MPI{Name: "MPICH", Tags: "mpi,mpich", Launcher: launcher, Env: []string{"UCX_TLS=self,sm"},
		args: func(np int) []string {
			return []string{"-launcher", "fork", "-hosts", "127.0.0.1", "-iface", "lo", "-n", fmt.Sprint(np)}
		}}
}

// lookMPI returns the first of names on PATH, or skips (fails under
// BLASTFLEET_REQUIRE_REAL=1).
func lookMPI(t testing.TB, names ...string) string {
	t.Helper()
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	skipOrFatal(t, "none of %v is installed (hack/install-deps.sh)", names)
	return ""
}

// Build builds the main package pkg (relative to the repository root, e.g.
// "./cmd/engine") against this MPI into a temporary directory.
func (m MPI) Build(t testing.TB, pkg string) string {
	t.Helper()
	RequireTools(t, "go")
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), filepath.Base(pkg))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-tags", m.Tags, "-o", bin, pkg)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build -tags %s %s: %v\n%s", m.Tags, pkg, err, out)
	}
	return bin
}
