package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// MPIEnv is what OpenMPI needs here: ranks may outnumber cores, we may be
// root, and containers forbid the ptrace-based single copy (docs/engine.md);
// ranks told to stop get 3 s, not 1, before mpirun's SIGKILL, as in the
// product's partitions (controllers/executor/mpijob).
var MPIEnv = []string{
	"OMPI_MCA_mpi_yield_when_idle=1",
	"OMPI_MCA_odls_base_sigkill_timeout=3",
	"OMPI_MCA_btl_vader_single_copy_mechanism=none",
	"OMPI_ALLOW_RUN_AS_ROOT=1",
	"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
}

// RequireTools skips (or, with BLASTFLEET_REQUIRE_REAL=1, fails) when a
// program the test runs is not on PATH.
func RequireTools(t testing.TB, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			if RequireReal() {
				t.Fatalf("%s is not installed (hack/install-deps.sh): %v", n, err)
			}
			t.Skipf("%s is not installed", n)
		}
	}
}

// Binaries are the built engine, CLI, operator and local stack
// (blastfleet-dev, always beside the CLI: "blastfleet dev" runs it from there).
type Binaries struct{ Engine, CLI, Manager, Dev string }

var (
	buildOnce sync.Once
	built     Binaries
	buildDir  string
	buildErr  error
)

// BuiltBinaries returns $BLASTFLEET_ENGINE and $BLASTFLEET_CLI (make test
// sets them after make build), or builds them once per test process.
// Call Main (or RemoveBuiltBinaries) from TestMain.
func BuiltBinaries(t testing.TB) Binaries {
	t.Helper()
	buildOnce.Do(func() { built, buildErr = buildBinaries() })
	if buildErr != nil {
		t.Fatalf("engine/CLI binaries: %v", buildErr)
	}
	return built
}

// RemoveBuiltBinaries deletes what BuiltBinaries built.
func RemoveBuiltBinaries() {
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
}

func buildBinaries() (Binaries, error) {
	b := Binaries{Engine: os.Getenv("BLASTFLEET_ENGINE"), CLI: os.Getenv("BLASTFLEET_CLI")}
	for name, p := range map[string]string{"BLASTFLEET_ENGINE": b.Engine, "BLASTFLEET_CLI": b.CLI} {
		if p == "" {
			continue
		}
		if !filepath.IsAbs(p) {
			return b, fmt.Errorf("%s=%s must be an absolute path", name, p)
		}
		if _, err := os.Stat(p); err != nil {
			return b, fmt.Errorf("%s: %w", name, err)
		}
	}
	if b.CLI != "" {
		// make build puts the operator and the local stack beside the CLI.
		if p := filepath.Join(filepath.Dir(b.CLI), "blastfleet-manager"); fileExists(p) {
			b.Manager = p
		}
		b.Dev = filepath.Join(filepath.Dir(b.CLI), "blastfleet-dev")
		if !fileExists(b.Dev) {
			return b, fmt.Errorf("BLASTFLEET_CLI=%s has no blastfleet-dev beside it: make build builds both", b.CLI)
		}
	}
	if b.Engine != "" && b.CLI != "" && b.Manager != "" {
		return b, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return b, err
	}
	if buildDir, err = os.MkdirTemp("", "blastfleet-e2e-bin-"); err != nil {
		return b, err
	}
	goBin := filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		goBin = "go"
	}
	build := func(out string, args ...string) error {
		cmd := exec.Command(goBin, append([]string{"build", "-o", out}, args...)...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %w\n%s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	if b.Engine == "" {
		b.Engine = filepath.Join(buildDir, "blastfleet-engine")
		if err := build(b.Engine, "-tags", "mpi", "./cmd/engine"); err != nil {
			return b, err
		}
	}
	if b.CLI == "" {
		b.CLI = filepath.Join(buildDir, "blastfleet")
		if err := build(b.CLI, "./cmd/blastfleet"); err != nil {
			return b, err
		}
		b.Dev = filepath.Join(buildDir, "blastfleet-dev")
		if err := build(b.Dev, "./cmd/blastfleet-dev"); err != nil {
			return b, err
		}
	}
	if b.Manager == "" {
		b.Manager = filepath.Join(buildDir, "blastfleet-manager")
		if err := build(b.Manager, "./cmd/manager"); err != nil {
			return b, err
		}
	}
	return b, nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
