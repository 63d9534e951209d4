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

// TestDefaultProteinTiesEqualBLAST searches with blastp's and tblastn's
// defaults (composition-based statistics 2) a database of protein
// families, mutated members with random flanks and exact copies (for
// tblastn back-translated), cut into 4 shards, each its own shard group:
// many subjects of different groups share a query and a printed E-value,
// and BLAST+ orders them by E-value digits tabular output does not print
// (docs/concepts.md#the-correctness-contract). The output must be BLAST+'s on the unsharded
// database, byte for byte, in-process and (blastp) under mpirun. Without
// the tie-break search both differ.
func TestDefaultProteinTiesEqualBLAST(t *testing.T) {
	requireTools(t, "mpirun", "blastp", "tblastn", "makeblastdb")
	b := bins(t)
	dir := t.TempDir()
	var proteins, queries bytes.Buffer
	o := synth.Options{Seed: 5, Protein: true, Families: 16, Members: 12, MinLen: 60, MaxLen: 250,
		Mutation: 0.3, Queries: 24, QueryFrac: 0.7, Unrelated: 20, Duplicates: 4, FlankMax: 30}
	if err := synth.Write(o, &proteins, &queries); err != nil {
		t.Fatal(err)
	}
	genes, err := synth.BackTranslate(proteins.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	q := filepath.Join(dir, "q.fa")
	writeFile(t, q, queries.Bytes())
	type run struct {
		name string
		np   int // 0: in-process
		args []string
	}
	perShard := run{"workers=2/groups=per-shard", 0, []string{"--workers", "2", "--group-bytes", "1"}}
	for _, p := range []struct {
		program, dbtype string
		db              []byte
		runs            []run
	}{
		{"blastp", "prot", proteins.Bytes(), []run{perShard,
			{"workers=3/groups=per-shard/top-hits=exact", 0, []string{"--workers", "3", "--group-bytes", "1", "--top-hits", "exact"}},
			{"np=3/groups=per-shard", 3, []string{"--group-bytes", "1"}}}},
		{"tblastn", "nucl", genes, []run{perShard}},
	} {
		t.Run(p.program, func(t *testing.T) {
			d := t.TempDir()
			fa := filepath.Join(d, "db.fa")
			writeFile(t, fa, p.db)
			unsharded, err := refsearch.MakeDB(context.Background(), fa, p.dbtype, d)
			if err != nil {
				t.Fatal(err)
			}
			const outfmt = "6 std slen"
			want, err := refsearch.SearchBatches(context.Background(), p.program, unsharded, q, outfmt, "-max_target_seqs", "500")
			if err != nil {
				t.Fatal(err)
			}
			// The data must hold what the test guards against: subjects
			// of a query with equal printed E-value (not 0) and bit score.
			if n := tiedLines(want); n < 100 {
				t.Fatalf("%d lines of subjects tied in printed values: the fixture could not show the order BLAST gives them", n)
			}
			db := filepath.Join(d, "sharded")
			mustRun(t, mpiTimeout, nil, b.cli, "db", "shard", "--input", fa, "--type", p.dbtype, "--shards", "4",
				"--output", db, "--work-dir", t.TempDir())
			for _, c := range p.runs {
				t.Run(c.name, func(t *testing.T) {
					d := t.TempDir()
					out := filepath.Join(d, "out.tsv")
					argv := []string{b.engine}
					if c.np > 0 {
						argv = append(mpirun(c.np), b.engine)
					}
					argv = append(argv, "--database", db, "--queries", q, "--program", p.program, "--outfmt", outfmt,
						"--output", out, "--cache-dir", filepath.Join(d, "cache"))
					mustRun(t, mpiTimeout, mpiEnv, append(argv, c.args...)...)
					if got := readFile(t, out); !bytes.Equal(got, want) {
						t.Errorf("differs from %s on the unsharded database: %s", p.program, refsearch.Diff(got, want))
					}
				})
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
