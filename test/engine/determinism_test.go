package engine_e2e

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/refsearch"
	"github.com/blastfleet/blastfleet/internal/synth"
)

// TestDeterminismMatrix runs one search every way the engine can cut and
// place it: in-process with 1, 2 and 4 workers, under mpirun with 2 to 5
// ranks, with blocks of one query and one block of all, with every output
// strategy, and with one shard group and one group per shard. Every output
// must be byte-identical to the others and to the queries-alone reference
// (each query searched by blastn alone on the unsharded database).
func TestDeterminismMatrix(t *testing.T) {
	requireTools(t, "mpirun", "blastn", "makeblastdb")
	b := bins(t)
	f := newFixture(t, synth.BatchingSensitive())
	const outfmt = "6 qseqid sseqid pident length evalue bitscore qstart qend sstart send"
	want := f.reference(t, outfmt, "-task", "blastn")
	oneRun, err := refsearch.Search(context.Background(), "blastn", f.unsharded, f.queries, outfmt,
		"-max_target_seqs", "500", "-task", "blastn")
	if err != nil {
		t.Fatal(err)
	}
	// The data must show what the test guards against.
	d := refsearch.Diff(oneRun, want)
	if d == "" {
		t.Fatal("one blastn run of all queries equals the queries-alone reference: the fixture no longer shows BLAST's batching, so this test could not fail")
	}
	t.Logf("one blastn run of all queries differs from the queries-alone reference: %s", d)
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
				t.Fatalf("%s: output differs from each query searched alone: %s", c.name, refsearch.Diff(got, want))
			}
		})
	}
	// The engine's previous design, BLAST's own batches (--blast-batches),
	// with one block of every query answers as one blastn run does: the
	// difference the matrix guards against is real in the engine too.
	t.Run("blast-batches/block-letters=all", func(t *testing.T) {
		got := search(t, 0, "--workers", "1", "--block-letters", "100000000", "--blast-batches")
		if d := refsearch.Diff(got, oneRun); d != "" {
			t.Fatalf("--blast-batches with one block differs from one blastn run of all queries: %s", d)
		}
	})
	if n := bytes.Count(want, []byte("\n")); n < 5000 {
		t.Errorf("the reference has %d lines; the fixture should give thousands", n)
	} else {
		t.Logf("every run equals the queries-alone reference: %d lines, %d bytes", n, len(want))
	}
}
