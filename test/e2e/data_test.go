package e2e

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/test/support/refsearch"
	"github.com/blastfleet/blastfleet/test/support/synth"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// outfmt is what every campaign asks for; the reference uses it too.
const outfmt = "6 std"

// fixture is the synthetic nucleotide database and queries (families of
// mutated sequences, so queries have real hits, and duplicates, so some
// hits tie) and the unsharded blastn reference search of them.
type fixture struct {
	db, queries []byte
	nQueries    int
	want        []byte
	// slowPath is a PATH whose blastn sleeps first, so a campaign lasts
	// long enough on a fast machine for faults to land mid-run.
	slowPath string
}

// blastDelay is how long the stack's blastn waits before each run: about
// a second per chunk, without using CPU.
const blastDelay = "0.5"

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dir := t.TempDir()
	var db, q bytes.Buffer
	if err := synth.Write(synth.Options{Seed: 11, Families: 24, Members: 10, MinLen: 300, MaxLen: 900, Mutation: 0.04,
		Queries: 30, QueryFrac: 0.6, Unrelated: 40, Duplicates: 2}, &db, &q); err != nil {
		t.Fatal(err)
	}
	f := &fixture{db: db.Bytes(), queries: q.Bytes(), nQueries: strings.Count(q.String(), ">")}
	fasta, qf := filepath.Join(dir, "db.fa"), filepath.Join(dir, "q.fa")
	for p, b := range map[string][]byte{fasta: f.db, qf: f.queries} {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	ref, err := refsearch.MakeDB(ctx, fasta, "nucl", filepath.Join(dir, "ref"))
	if err != nil {
		t.Fatal(err)
	}
	if f.want, err = refsearch.SearchAlone(ctx, "blastn", ref, qf, outfmt, "-max_target_seqs", "500"); err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(f.want, []byte("\n")); n < 100 {
		t.Fatalf("the reference search has only %d lines: the data has too few hits to compare", n)
	}
	slow, err := testenv.SlowBLASTPath(dir, blastDelay)
	if err != nil {
		t.Fatal(err)
	}
	f.slowPath = slow
	return f
}
