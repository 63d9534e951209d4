// Package engine_e2e runs the built binaries (blastfleet-engine under
// mpirun and in-process, and the blastfleet CLI) end to end against real
// BLAST+, OpenMPI (and MPICH: TestMPICHEngine) and MinIO, and checks their output against an unsharded
// BLAST search (docs/concepts.md#the-correctness-contract).
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
	"syscall"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/test/support/refsearch"
	"github.com/blastfleet/blastfleet/test/support/synth"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// mpiEnv is what OpenMPI needs here (testenv.MPIEnv).
var mpiEnv = testenv.MPIEnv

func requireTools(t *testing.T, names ...string) { testenv.RequireTools(t, names...) }

type binaries struct{ engine, cli string }

// bins returns the engine and CLI binaries (testenv.BuiltBinaries).
func bins(t *testing.T) binaries {
	b := testenv.BuiltBinaries(t)
	return binaries{engine: b.Engine, cli: b.CLI}
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
		procs := testenv.Descendants(pid)
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		for _, p := range procs {
			// Only a process that is still the one we saw (same start time).
			if start, ok := testenv.ProcStart(p.PID); ok && start == p.Start {
				_ = syscall.Kill(p.PID, syscall.SIGKILL)
			}
		}
	}
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

// mpirun returns the argv prefix that launches np ranks with Open MPI's
// mpirun, by its own name where it has one: MPICH installed beside it
// could own the mpirun alternative (testenv.OpenMPIRun).
func mpirun(np int) []string {
	return []string{testenv.OpenMPIRun(), "-np", fmt.Sprint(np), "--oversubscribe", "--allow-run-as-root"}
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

// reference is one blastn run of the whole query file on the unsharded
// database, in BLAST+'s batches of the search's BATCH_SIZE, with the
// engine's defaults (-max_target_seqs 500, BLAST's E-value) and extra
// arguments: the correctness contract's yardstick (docs/concepts.md#the-correctness-contract).
func (f *fixture) reference(t *testing.T, outfmt string, args ...string) []byte {
	t.Helper()
	return f.referenceWith(t, refsearch.SearchBatches, outfmt, args...)
}

// referenceAlone is reference for --batching alone: each query searched
// alone.
func (f *fixture) referenceAlone(t *testing.T, outfmt string, args ...string) []byte {
	t.Helper()
	return f.referenceWith(t, refsearch.SearchAlone, outfmt, args...)
}

func (f *fixture) referenceWith(t *testing.T, search func(ctx context.Context, program, db, queries, outfmt string, args ...string) ([]byte, error), outfmt string, args ...string) []byte {
	t.Helper()
	args = append([]string{"-max_target_seqs", "500"}, args...)
	out, err := search(context.Background(), "blastn", f.unsharded, f.queries, outfmt, args...)
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
