package shard

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/storage/manifest"
)

// TestSearchEqualsUnsharded is the correctness contract in miniature: every
// hit of a search against the shards' alias files, E-value included, is the
// hit of the same search against the unsharded database, and vice versa.
func TestSearchEqualsUnsharded(t *testing.T) {
	for _, tc := range []struct {
		typ     manifest.DBType
		program string
		letters string
	}{
		{manifest.Nucleotide, "blastn", "ACGT"},
		{manifest.Protein, "blastp", "ACDEFGHIKLMNPQRSTVWY"},
	} {
		t.Run(tc.program, func(t *testing.T) {
			requireBLAST(t, tc.program)
			input, bases := synthetic(t, 11, tc.letters, 10, 5, 15)
			st, dir := newStore(t)
			opts := buildOpts(input, st, 3)
			opts.Type = tc.typ
			m, err := Build(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}

			whole := filepath.Join(t.TempDir(), "whole")
			if out, err := exec.Command("makeblastdb", "-in", input, "-dbtype", string(tc.typ),
				"-parse_seqids", "-out", whole).CombinedOutput(); err != nil {
				t.Fatalf("makeblastdb of the whole input: %v\n%s", err, out)
			}

			rng := rand.New(rand.NewPCG(5, 5))
			var q strings.Builder
			// Short, diverged fragments give E-values far from 0, where a
			// wrong search space would show.
			for i, b := range bases[:8] {
				start := rng.IntN(len(b) - 200)
				fmt.Fprintf(&q, ">q%d\n%s\n", i, mutate(rng, tc.letters, b[start:start+200], 0.08))
			}
			queries := filepath.Join(t.TempDir(), "q.fa")
			if err := os.WriteFile(queries, []byte(q.String()), 0o644); err != nil {
				t.Fatal(err)
			}

			want := search(t, tc.program, queries, whole)
			var got, raw []string
			for _, s := range m.Shards {
				got = append(got, search(t, tc.program, queries, filepath.Join(dir, m.Build, s.Name))...)
				raw = append(raw, search(t, tc.program, queries, filepath.Join(dir, m.Build, s.DBName))...)
			}
			slices.Sort(want)
			slices.Sort(got)
			slices.Sort(raw)
			if len(want) < 10 {
				t.Fatalf("only %d hits: the test data finds too little", len(want))
			}
			t.Logf("%d hits, e.g. %s", len(want), want[len(want)/2])
			if !slices.Equal(got, want) {
				t.Errorf("sharded hits differ from unsharded ones\nsharded:\n%s\nunsharded:\n%s",
					strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			// Without the alias files' statistics the E-values differ: the
			// check above has teeth.
			if slices.Equal(raw, want) {
				t.Errorf("searching shard DBs without alias statistics gave the unsharded E-values too:\n%s", strings.Join(want, "\n"))
			}
		})
	}
}

// search runs a BLAST program and returns its tabular hit lines.
func search(t *testing.T, program, queries, db string) []string {
	t.Helper()
	cmd := exec.Command(program, "-query", queries, "-db", db, "-max_target_seqs", "1000",
		"-outfmt", "6 qseqid sseqid pident length mismatch gapopen qstart qend sstart send evalue bitscore score")
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("%s -db %s: %v\n%s", program, db, err, stderr)
	}
	if len(strings.TrimSpace(string(out))) == 0 {
		return nil // a shard may hold none of the queries' families
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}
