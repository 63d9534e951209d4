package engine_e2e

import (
	"path/filepath"
	"testing"

	"github.com/blastfleet/blastfleet/test/support/refsearch"
)

// TestStaticSchedulesMPI runs the static splits under mpirun on real BLAST:
// who searches what changes, the output does not (it equals the unsharded
// search, as the dynamic schedule's does in TestMPIEqualsUnsharded).
func TestStaticSchedulesMPI(t *testing.T) {
	requireTools(t, "mpirun", "blastn", "makeblastdb")
	b := bins(t)
	f := newFixture(t, nuclFamilies())
	want := f.reference(t, "6 std")
	db := filepath.Join(t.TempDir(), "db")
	shard(t, b.cli, f.fasta, 3, db, nil)
	for _, sched := range []string{"length-split", "weight-split"} {
		t.Run(sched, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out.tsv")
			sumPath := filepath.Join(dir, "summary.json")
			r := mustRun(t, mpiTimeout, mpiEnv, append(mpirun(4), b.engine, "--database", db, "--queries", f.queries,
				"--program", "blastn", "--outfmt", "6 std", "--output", out, "--group-bytes", "1",
				"--cache-dir", filepath.Join(dir, "cache"), "--schedule", sched, "--summary-json", sumPath)...)
			if d := refsearch.Diff(readFile(t, out), want); d != "" {
				t.Fatalf("--schedule %s: output differs from the unsharded search: %s\n%s", sched, d, r)
			}
			var s simSummary
			readJSON(t, sumPath, &s)
			if s.Schedule != sched || s.Backend != "blast" {
				t.Errorf("summary: schedule %q, backend %q", s.Schedule, s.Backend)
			}
		})
	}
}
