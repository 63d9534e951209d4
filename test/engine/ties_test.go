package engine_e2e

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/blastfleet/blastfleet/test/support/refsearch"
	"github.com/blastfleet/blastfleet/test/support/synth"
)

// TestDefaultBlastpTiesEqualBLAST searches proteins with blastp's defaults
// (composition-based statistics 2) on a database whose families hold
// members of equal score and other lengths (random flanks) and exact
// copies, cut into 4 shards, each its own shard group: many subjects of
// different groups share a query, a printed E-value and a raw score, and
// BLAST+ orders them by E-value digits tabular output does not print
// (docs/concepts.md#the-correctness-contract). The output must be blastp's on the unsharded
// database, byte for byte, in-process and under mpirun.
func TestDefaultBlastpTiesEqualBLAST(t *testing.T) {
	requireTools(t, "mpirun", "blastp", "makeblastdb")
	b := bins(t)
	dir := t.TempDir()
	var dbFASTA, queries bytes.Buffer
	o := synth.Options{Seed: 5, Protein: true, Families: 16, Members: 12, MinLen: 60, MaxLen: 250,
		Mutation: 0.3, Queries: 24, QueryFrac: 0.7, Unrelated: 20, Duplicates: 4, FlankMax: 30}
	if err := synth.Write(o, &dbFASTA, &queries); err != nil {
		t.Fatal(err)
	}
	fa, q := filepath.Join(dir, "db.fa"), filepath.Join(dir, "q.fa")
	writeFile(t, fa, dbFASTA.Bytes())
	writeFile(t, q, queries.Bytes())
	unsharded, err := refsearch.MakeDB(context.Background(), fa, "prot", dir)
	if err != nil {
		t.Fatal(err)
	}
	const outfmt = "6 std slen"
	want, err := refsearch.SearchBatches(context.Background(), "blastp", unsharded, q, outfmt, "-max_target_seqs", "500")
	if err != nil {
		t.Fatal(err)
	}
	// The data must hold what the test guards against: subjects of a query
	// with equal printed E-value (not 0) and bit score.
	if n := tiedLines(want); n < 100 {
		t.Fatalf("%d lines of subjects tied in printed values: the fixture could not show the order BLAST gives them", n)
	}
	db := filepath.Join(t.TempDir(), "db")
	mustRun(t, mpiTimeout, nil, b.cli, "db", "shard", "--input", fa, "--type", "prot", "--shards", "4",
		"--output", db, "--work-dir", t.TempDir())
	for _, c := range []struct {
		name string
		np   int // 0: in-process
		args []string
	}{
		{"workers=2/groups=per-shard", 0, []string{"--workers", "2", "--group-bytes", "1"}},
		{"workers=3/groups=per-shard/top-hits=exact", 0, []string{"--workers", "3", "--group-bytes", "1", "--top-hits", "exact"}},
		{"np=3/groups=per-shard", 3, []string{"--group-bytes", "1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := t.TempDir()
			out := filepath.Join(d, "out.tsv")
			argv := []string{b.engine}
			if c.np > 0 {
				argv = append(mpirun(c.np), b.engine)
			}
			argv = append(argv, "--database", db, "--queries", q, "--program", "blastp", "--outfmt", outfmt,
				"--output", out, "--cache-dir", filepath.Join(d, "cache"))
			mustRun(t, mpiTimeout, mpiEnv, append(argv, c.args...)...)
			if got := readFile(t, out); !bytes.Equal(got, want) {
				t.Errorf("differs from blastp on the unsharded database: %s", refsearch.Diff(got, want))
			}
		})
	}
}

// tiedLines counts the lines of subjects that share query, printed
// E-value (not 0) and bit score with another subject. Columns are those
// of "6 std slen".
func tiedLines(out []byte) int {
	subjects := map[string]map[string]bool{}
	lines := map[string]int{}
	for _, l := range bytes.Split(out, []byte("\n")) {
		f := bytes.Split(l, []byte("\t"))
		if len(f) != 13 || string(f[10]) == "0.0" {
			continue
		}
		k := fmt.Sprintf("%s\t%s\t%s", f[0], f[10], f[11])
		if subjects[k] == nil {
			subjects[k] = map[string]bool{}
		}
		subjects[k][string(f[1])] = true
		lines[k]++
	}
	n := 0
	for k, s := range subjects {
		if len(s) > 1 {
			n += lines[k]
		}
	}
	return n
}
