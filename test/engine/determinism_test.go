package engine_e2e

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/test/support/refsearch"
	"github.com/blastfleet/blastfleet/test/support/synth"
)

// TestDeterminismMatrix runs one search every way the engine can cut and
// place it: in-process with 1, 2 and 4 workers, under mpirun with 2 to 5
// ranks, with blocks of one query and one block of all, with every output
// strategy, and with one shard group and one group per shard. Every output
// must be byte-identical to the others and to the reference: one blastn
// run of the whole query file on the unsharded database, in BLAST+'s
// batches (BATCH_SIZE of the task). The same holds for --batching alone
// against each query searched alone.
func TestDeterminismMatrix(t *testing.T) {
	requireTools(t, "mpirun", "blastn", "makeblastdb")
	b := bins(t)
	f := newFixture(t, synth.BatchingSensitive())
	const outfmt = "6 qseqid sseqid pident length evalue bitscore qstart qend sstart send"
	want := f.reference(t, outfmt, "-task", "blastn")
	alone := f.referenceAlone(t, outfmt, "-task", "blastn")
	// The data must show what the test guards against: a block cut
	// through a batch, or a batch searched query by query, answers
	// otherwise.
	d := refsearch.Diff(alone, want)
	if d == "" {
		t.Fatal("the queries searched alone equal BLAST+'s batches: the fixture no longer shows BLAST's batching, so this test could not fail")
	}
	t.Logf("each query alone differs from BLAST+'s batches: %s", d)
	db := filepath.Join(t.TempDir(), "db")
	shard(t, b.cli, f.fasta, 4, db, nil)

	type runCase struct {
		name string
		np   int // 0: in-process
		args []string
	}
	cases := []runCase{
		{"workers=1", 0, []string{"--workers", "1"}},
		{"workers=2", 0, []string{"--workers", "2"}},
		{"workers=4", 0, []string{"--workers", "4"}},
		{"workers=2/block-letters=small", 0, []string{"--workers", "2", "--block-letters", "200"}},
		{"workers=2/block-letters=all", 0, []string{"--workers", "2", "--block-letters", "100000000"}},
		{"workers=3/groups=per-shard", 0, []string{"--workers", "3", "--group-bytes", "1"}},
		{"workers=2/groups=per-shard/top-hits=exact", 0, []string{"--workers", "2", "--group-bytes", "1", "--top-hits", "exact"}},
		{"np=2", 2, nil},
		{"np=3", 3, nil},
		{"np=4/groups=per-shard", 4, []string{"--group-bytes", "1"}},
		{"np=5/block-letters=small", 5, []string{"--block-letters", "200"}},
		{"np=3/length-split", 3, []string{"--schedule", "length-split"}},
	}
	for _, s := range strategies[1:] {
		cases = append(cases, runCase{"np=3/strategy=" + s, 3, []string{"--strategy", s, "--write-buffer", "64KiB"}})
	}
	// search runs the engine on the shards (np ranks under mpirun; 0:
	// in-process) and returns its output.
	search := func(t *testing.T, np int, args ...string) []byte {
		dir := t.TempDir()
		out := filepath.Join(dir, "out.tsv")
		argv := []string{b.engine}
		if np > 0 {
			argv = append(mpirun(np), b.engine)
		}
		argv = append(argv, "--database", db, "--queries", f.queries, "--program", "blastn",
			"--blast-option=-task=blastn", "--outfmt", outfmt, "--output", out, "--cache-dir", filepath.Join(dir, "cache"))
		r := mustRun(t, mpiTimeout, mpiEnv, append(argv, args...)...)
		t.Logf("%s: %s", t.Name(), r.elapsed.Round(time.Millisecond))
		return readFile(t, out)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := search(t, c.np, c.args...); !bytes.Equal(got, want) {
				t.Fatalf("%s: output differs from BLAST+'s batches: %s", c.name, refsearch.Diff(got, want))
			}
		})
	}
	// Each query alone, for users who want a query's answer independent of
	// its neighbours: the same matrix in small.
	for _, c := range []runCase{
		{"alone/workers=2", 0, []string{"--workers", "2"}},
		{"alone/workers=2/block-letters=all", 0, []string{"--workers", "2", "--block-letters", "100000000"}},
		{"alone/np=4/groups=per-shard", 4, []string{"--group-bytes", "1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := search(t, c.np, append(c.args, "--batching", "alone")...); !bytes.Equal(got, alone) {
				t.Fatalf("%s: output differs from each query searched alone: %s", c.name, refsearch.Diff(got, alone))
			}
		})
	}
	if n := bytes.Count(want, []byte("\n")); n < 5000 {
		t.Errorf("the reference has %d lines; the fixture should give thousands", n)
	} else {
		t.Logf("every run equals its reference: %d lines, %d bytes", n, len(want))
	}
}
