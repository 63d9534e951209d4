// Package engine_e2e runs the built binaries (blastfleet-engine under
// mpirun and in-process, and the blastfleet CLI) end to end against real
// BLAST+, OpenMPI and MinIO, and checks their output against an unsharded
// BLAST search (DESIGN.md §3).
package engine_e2e

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/refsearch"
	"github.com/blastfleet/blastfleet/internal/synth"
	"github.com/blastfleet/blastfleet/internal/testenv"
)

// buildDir holds binaries this package builds when BLASTFLEET_ENGINE and
// BLASTFLEET_CLI are not set; TestMain removes it.
var buildDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// mpiEnv is what OpenMPI needs here: ranks may outnumber cores, we may be
// root, and containers forbid the ptrace-based single copy (DESIGN.md §4).
var mpiEnv = []string{
	"OMPI_MCA_mpi_yield_when_idle=1",
	"OMPI_MCA_btl_vader_single_copy_mechanism=none",
	"OMPI_ALLOW_RUN_AS_ROOT=1",
	"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
}

// requireTools skips (or, with BLASTFLEET_REQUIRE_REAL=1, fails) when a
// program the test runs is not on PATH.
func requireTools(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			if testenv.RequireReal() {
				t.Fatalf("%s is not installed (hack/install-deps.sh): %v", n, err)
			}
			t.Skipf("%s is not installed", n)
		}
	}
}

type binaries struct{ engine, cli string }

var (
	buildOnce sync.Once
	built     binaries
	buildErr  error
)

// bins returns the engine and CLI binaries: $BLASTFLEET_ENGINE and
// $BLASTFLEET_CLI, or built once from the repository for this package.
func bins(t *testing.T) binaries {
	t.Helper()
	buildOnce.Do(func() {
		built = binaries{engine: os.Getenv("BLASTFLEET_ENGINE"), cli: os.Getenv("BLASTFLEET_CLI")}
		for name, p := range map[string]string{"BLASTFLEET_ENGINE": built.engine, "BLASTFLEET_CLI": built.cli} {
			if p == "" {
				continue
			}
			if !filepath.IsAbs(p) {
				buildErr = fmt.Errorf("%s=%s must be an absolute path", name, p)
				return
			}
			if _, err := os.Stat(p); err != nil {
				buildErr = fmt.Errorf("%s: %w", name, err)
				return
			}
		}
		if built.engine != "" && built.cli != "" {
			return
		}
		root, err := testenv.RepoRoot()
		if err != nil {
			buildErr = err
			return
		}
		if buildDir, err = os.MkdirTemp("", "blastfleet-e2e-bin-"); err != nil {
			buildErr = err
			return
		}
		goBin := filepath.Join(os.Getenv("GOROOT"), "bin", "go")
		if _, err := os.Stat(goBin); err != nil {
			goBin = "go"
		}
		build := func(out string, args ...string) error {
			cmd := exec.Command(goBin, append([]string{"build", "-o", out}, args...)...)
			cmd.Dir = root
			if b, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("go build %s: %w\n%s", strings.Join(args, " "), err, b)
			}
			return nil
		}
		if built.engine == "" {
			built.engine = filepath.Join(buildDir, "blastfleet-engine")
			if buildErr = build(built.engine, "-tags", "mpi", "./cmd/engine"); buildErr != nil {
				return
			}
		}
		if built.cli == "" {
			built.cli = filepath.Join(buildDir, "blastfleet")
			buildErr = build(built.cli, "./cmd/blastfleet")
		}
	})
	if buildErr != nil {
		t.Fatalf("engine/CLI binaries: %v", buildErr)
	}
	return built
}

// result is what a finished command left.
type result struct {
	stdout, stderr string
	exitCode       int
	elapsed        time.Duration
	timedOut       bool
}

func (r *result) String() string {
	return fmt.Sprintf("exit %d after %s\nstdout:\n%s\nstderr:\n%s", r.exitCode, r.elapsed.Round(time.Millisecond), r.stdout, r.stderr)
}

// run runs argv in its own process group with env added to the test's
// environment. On timeout the whole group (mpirun and every rank) is
// killed, so a hang fails fast instead of holding the test binary.
func run(t *testing.T, timeout time.Duration, env []string, argv ...string) *result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error {
		killTree(cmd.Process.Pid)
		return nil
	}
	// Do not wait forever for pipes held open by orphaned grandchildren.
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := &result{stdout: stdout.String(), stderr: stderr.String(), elapsed: time.Since(start)}
	if cmd.Process != nil {
		// Whatever the outcome, leave no member of the group behind.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		r.timedOut, r.exitCode = true, -1
		t.Errorf("%s: timed out after %s, killed its process group\n%s", strings.Join(argv, " "), timeout, r)
	case errors.As(err, &ee):
		r.exitCode = ee.ExitCode()
	case err != nil:
		t.Fatalf("%s: %v", strings.Join(argv, " "), err)
	}
	return r
}

// killTree kills pid's process group and every descendant of pid. mpirun
// starts each rank in a process group of its own, so killing mpirun's group
// alone would orphan the ranks (and the BLAST processes under them).
func killTree(pid int) {
	for pass := 0; pass < 2; pass++ { // a second pass for children forked meanwhile
		procs := descendants(pid)
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		for _, p := range procs {
			// Only a process that is still the one we saw (same start time).
			if start, ok := procStart(p.pid); ok && start == p.start {
				_ = syscall.Kill(p.pid, syscall.SIGKILL)
			}
		}
	}
}

type proc struct {
	pid   int
	start string // start time in clock ticks since boot: tells a reused pid apart
}

// procStat returns the parent pid and start time of a process from
// /proc/PID/stat.
func procStat(pid int) (ppid int, start string, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, "", false
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, "", false
	}
	f := strings.Fields(s[i+1:]) // f[0] is field 3 (state)
	if len(f) < 20 {
		return 0, "", false
	}
	if _, err := fmt.Sscan(f[1], &ppid); err != nil {
		return 0, "", false
	}
	return ppid, f[19], true // field 22: starttime
}

func procStart(pid int) (string, bool) {
	_, start, ok := procStat(pid)
	return start, ok
}

// descendants lists every process below pid (Linux /proc; elsewhere none).
func descendants(pid int) []proc {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]proc{}
	for _, e := range entries {
		var p int
		if _, err := fmt.Sscan(e.Name(), &p); err != nil {
			continue
		}
		if ppid, start, ok := procStat(p); ok {
			children[ppid] = append(children[ppid], proc{pid: p, start: start})
		}
	}
	var out []proc
	queue := []int{pid}
	for len(queue) > 0 {
		for _, c := range children[queue[0]] {
			out = append(out, c)
			queue = append(queue, c.pid)
		}
		queue = queue[1:]
	}
	return out
}

// mustRun runs argv and fails the test unless it exits 0.
func mustRun(t *testing.T, timeout time.Duration, env []string, argv ...string) *result {
	t.Helper()
	r := run(t, timeout, env, argv...)
	if r.exitCode != 0 {
		t.Fatalf("%s: %s", strings.Join(argv, " "), r)
	}
	return r
}

// mpirun returns the argv prefix that launches np ranks.
func mpirun(np int) []string {
	return []string{"mpirun", "-np", fmt.Sprint(np), "--oversubscribe", "--allow-run-as-root"}
}

// fixture is a synthetic nucleotide database and queries, with the
// unsharded BLAST database the engine must agree with.
type fixture struct {
	dir, fasta, queries, unsharded string
}

// nuclFamilies is the engine package's own blastn fixture (seed fixed).
func nuclFamilies() synth.Options {
	return synth.Options{Seed: 7, Families: 24, Members: 10, MinLen: 300, MaxLen: 900, Mutation: 0.04,
		Queries: 30, QueryFrac: 0.6, Unrelated: 40, Duplicates: 2}
}

func newFixture(t *testing.T, o synth.Options) *fixture {
	t.Helper()
	requireTools(t, "blastn", "makeblastdb")
	dir := t.TempDir()
	f := &fixture{dir: dir, fasta: filepath.Join(dir, "db.fa"), queries: filepath.Join(dir, "q.fa")}
	var db, q bytes.Buffer
	if err := synth.Write(o, &db, &q); err != nil {
		t.Fatal(err)
	}
	writeFile(t, f.fasta, db.Bytes())
	writeFile(t, f.queries, q.Bytes())
	var err error
	if f.unsharded, err = refsearch.MakeDB(context.Background(), f.fasta, "nucl", dir); err != nil {
		t.Fatal(err)
	}
	return f
}

// reference is the unsharded blastn run with the engine's defaults
// (-max_target_seqs 500, BLAST's E-value) and extra arguments.
func (f *fixture) reference(t *testing.T, outfmt string, args ...string) []byte {
	t.Helper()
	args = append([]string{"-max_target_seqs", "500"}, args...)
	out, err := refsearch.Search(context.Background(), "blastn", f.unsharded, f.queries, outfmt, args...)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(out, []byte("\n")); n < 100 {
		t.Fatalf("the reference has only %d lines; the fixture should give real hits", n)
	}
	return out
}

// shard runs `blastfleet db shard` into output and returns its result.
func shard(t *testing.T, cli, input string, n int, output string, env []string) *result {
	t.Helper()
	return mustRun(t, 60*time.Second, env, cli, "db", "shard", "--input", input, "--type", "nucl",
		"--shards", fmt.Sprint(n), "--output", output, "--work-dir", t.TempDir())
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// noOutputLeft fails the test if path, or a temp file next to it
// (.NAME.partial-*), exists.
func noOutputLeft(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("output %s exists after a failed run (stat: %v)", path, err)
	}
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), filepath.Base(path)) || strings.Contains(e.Name(), ".partial") {
			t.Errorf("%s left next to the output after a failed run", e.Name())
		}
	}
}

// gzipBytes returns data gzip-compressed.
func gzipBytes(t *testing.T, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
