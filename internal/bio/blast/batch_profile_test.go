package blast_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/test/support/refsearch"
	"github.com/blastfleet/blastfleet/test/support/synth"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// TestProfileProgramsBatchRule measures BLAST+'s own batching of rpsblast,
// rpstblastn and psiblast against plain runs. rpsblast's and rpstblastn's
// tabular lines do not change with the batch, but the gapped K each
// query's pairwise report prints does: plain runs print what runs in
// batches of blast.BatchLetters print, and batches cut elsewhere print
// otherwise (so the data tells). psiblast reads one query at a time: any
// BATCH_SIZE prints what the plain run prints, and that is each query run
// in its own process.
func TestProfileProgramsBatchRule(t *testing.T) {
	testenv.RequireTools(t, "rpstblastn", "psiblast", "makeprofiledb", "makeblastdb")
	testenv.RequireTools(t, blast.Rpsblast.Command())
	ctx := context.Background()
	dir := t.TempDir()
	var db, q bytes.Buffer
	if err := synth.Write(synth.Options{Seed: 5, Protein: true, Families: 8, Members: 6, MinLen: 80, MaxLen: 300,
		Mutation: 0.1, Queries: 120, QueryFrac: 0.9, Unrelated: 10}, &db, &q); err != nil {
		t.Fatal(err)
	}
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	dbFasta, protQ := write("db.fa", db.Bytes()), write("q.fa", q.Bytes())
	codingQ := write("cq.fa", backTranslate(t, q.Bytes()))
	seqDB, err := refsearch.MakeDB(ctx, dbFasta, "prot", dir)
	if err != nil {
		t.Fatal(err)
	}
	profiles, err := refsearch.MakeProfileDB(ctx, seqDB, dbFasta, 6, dir, "profiles")
	if err != nil {
		t.Fatal(err)
	}
	// search runs program as a user would, BATCH_SIZE set only if b > 0.
	search := func(program blast.Program, db, queries, outfmt string, b int, args ...string) []byte {
		t.Helper()
		cmd := exec.CommandContext(ctx, program.Command(), append([]string{"-db", db, "-query", queries, "-outfmt", outfmt}, args...)...)
		cmd.Env = append(os.Environ(), "BLAST_USAGE_REPORT=false")
		if b > 0 {
			cmd.Env = append(cmd.Env, blast.BatchEnvValue(b))
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%v: %v: %s", cmd.Args, err, stderr.String())
		}
		return out
	}
	lengths := func(path string) []int {
		var n []int
		for _, r := range readFASTA(t, path) {
			n = append(n, len(r.Seq))
		}
		return n
	}
	for _, c := range []struct {
		program blast.Program
		queries string
	}{{blast.Rpsblast, protQ}, {blast.Rpstblastn, codingQ}} {
		t.Run(string(c.program), func(t *testing.T) {
			b := blast.BatchLetters(c.program, nil, blast.BatchingBLAST)
			if ends := blast.BatchEnds(lengths(c.queries), b); len(ends) < 2 {
				t.Fatalf("one batch of %d letters: the data should make several", b)
			}
			plain := search(c.program, profiles, c.queries, "0", 0)
			if n := bytes.Count(plain, []byte("\n>")); n < 50 {
				t.Fatalf("%d hits: the profiles should find the queries' families", n)
			}
			if d := refsearch.Diff(search(c.program, profiles, c.queries, "0", b), plain); d != "" {
				t.Fatalf("BATCH_SIZE=%d differs from plain %s (B is not BLAST+'s own): %s", b, c.program, d)
			}
			for _, other := range []int{b / 2, 3 * b / 2} {
				if d := refsearch.Diff(search(c.program, profiles, c.queries, "0", other), plain); d == "" {
					t.Fatalf("BATCH_SIZE=%d answers as plain %s: the data cannot tell the batches", other, c.program)
				}
			}
		})
	}
	t.Run("psiblast", func(t *testing.T) {
		if b := blast.BatchLetters(blast.Psiblast, nil, blast.BatchingBLAST); b != blast.Alone {
			t.Fatalf("BatchLetters(psiblast) = %d, want %d (one query at a time)", b, blast.Alone)
		}
		iter := []string{"-num_iterations", "3"}
		plain := search(blast.Psiblast, seqDB, protQ, "0", 0, iter...)
		if !bytes.Contains(plain, []byte("Search has CONVERGED!")) || !bytes.Contains(plain, []byte("Results from round 2")) {
			t.Fatal("no query iterated: the data should make psiblast iterate")
		}
		for _, b := range []int{1, 10000, 100000} {
			if d := refsearch.Diff(search(blast.Psiblast, seqDB, protQ, "0", b, iter...), plain); d != "" {
				t.Fatalf("BATCH_SIZE=%d differs from plain psiblast: %s", b, d)
			}
		}
		alone, err := refsearch.SearchAlone(ctx, string(blast.Psiblast), seqDB, protQ, "6", iter...)
		if err != nil {
			t.Fatal(err)
		}
		if d := refsearch.Diff(search(blast.Psiblast, seqDB, protQ, "6", 0, iter...), alone); d != "" {
			t.Fatalf("plain psiblast differs from one process per query: %s", d)
		}
	})
}
