package engine_e2e

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/bio/blastdb/blastdbtest"
	"github.com/blastfleet/blastfleet/test/support/refsearch"
	"github.com/blastfleet/blastfleet/test/support/synth"
)

// taxColumns are the tabular columns BLAST fills from a database's taxids
// and the taxonomy database, beside the hit's identity and statistics.
const taxColumns = "6 qseqid sseqid pident length evalue bitscore staxid ssciname scomname sblastname sskingdom staxids sscinames stitle"

// TestPrebuiltBlastDBEqualsBLAST shards NCBI-style packed databases
// (several volumes, taxids, merged deflines, near-identical members and
// exact duplicates that tie) with `db shard --blastdb`, searches them with
// the engine in-process and under mpirun, and compares byte for byte with
// BLAST+ on the original database, each query alone: with the taxonomy
// columns, under -taxids and under -negative_taxids. The engine runs with
// BLASTDB pointing at an empty directory, so the taxonomy names it prints
// come from the taxdb it shipped with the shards.
func TestPrebuiltBlastDBEqualsBLAST(t *testing.T) {
	requireTools(t, "mpirun", "blastn", "blastp", "makeblastdb", "blastdbcmd")
	b := bins(t)
	for _, tc := range []struct {
		program string
		opts    blastdbtest.Options
	}{
		{"blastn", blastdbtest.Options{Name: "fictnt", VolumeMax: 3000, Synth: synth.Options{Seed: 21, Families: 8, Members: 8,
			MinLen: 500, MaxLen: 900, Mutation: 0.03, Queries: 16, QueryFrac: 0.5, Unrelated: 6, Duplicates: 4}}},
		{"blastp", blastdbtest.Options{Name: "fictnr", Protein: true, VolumeMax: 3000, Synth: synth.Options{Seed: 22, Families: 8, Members: 6,
			MinLen: 150, MaxLen: 300, Mutation: 0.15, Queries: 10, QueryFrac: 0.5, Unrelated: 6, Duplicates: 4}}},
	} {
		t.Run(tc.program, func(t *testing.T) {
			src, err := blastdbtest.Build(t.TempDir(), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if src.Volumes < 4 {
				t.Fatalf("%d volumes: the test wants several", src.Volumes)
			}
			db := filepath.Join(t.TempDir(), "db")
			mustRun(t, mpiTimeout, nil, b.cli, "db", "shard", "--blastdb", filepath.Join(src.Packed, src.Name),
				"--shards", "3", "--output", db, "--work-dir", t.TempDir())
			// The reference finds the taxdb beside the original database.
			t.Setenv("BLASTDB", src.Original)
			reference := func(args ...string) []byte {
				args = append([]string{"-max_target_seqs", "500"}, args...)
				out, err := refsearch.SearchBatches(context.Background(), tc.program, src.Path(), src.Queries, taxColumns, args...)
				if err != nil {
					t.Fatal(err)
				}
				return out
			}
			all := reference()
			if n := bytes.Count(all, []byte("\n")); n < 100 || !bytes.Contains(all, []byte("Fictus primus")) {
				t.Fatalf("the reference has %d lines and no taxonomy names? the fixture should give both", n)
			}
			empty := "BLASTDB=" + t.TempDir()
			for _, c := range []struct {
				name   string
				filter []string
			}{
				{"taxonomy columns", nil},
				{"taxids", []string{"-taxids", "9001,9003"}},
				{"negative_taxids", []string{"-negative_taxids", "9002"}},
				// Only the last families: groups of the first shards
				// hold none of it and are skipped.
				{"taxids of the last shard", []string{"-taxids", "9005"}},
			} {
				t.Run(c.name, func(t *testing.T) {
					want := all
					var opts []string
					if c.filter != nil {
						want = reference(c.filter...)
						opts = []string{"--blast-option=" + c.filter[0] + "=" + c.filter[1]}
						// BLAST counts only the kept sequences for E-values:
						// the filtered reference is no subset of the
						// unfiltered one, so whole-database statistics
						// would fail this test.
						if !hasNewLine(want, all) {
							t.Fatal("the filtered reference's lines are all in the unfiltered one: the test could not tell the statistics apart")
						}
					}
					for _, run := range []struct {
						name string
						np   int
						args []string
					}{
						{"workers=2", 0, []string{"--workers", "2"}},
						{"np=3/groups=per-shard", 3, []string{"--group-bytes", "1"}},
					} {
						dir := t.TempDir()
						out := filepath.Join(dir, "out.tsv")
						argv := []string{b.engine}
						if run.np > 0 {
							argv = append(mpirun(run.np), b.engine)
						}
						argv = append(argv, "--database", db, "--queries", src.Queries, "--program", tc.program,
							"--outfmt", taxColumns, "--output", out, "--cache-dir", filepath.Join(dir, "cache"))
						argv = append(append(argv, opts...), run.args...)
						mustRun(t, mpiTimeout, append([]string{empty}, mpiEnv...), argv...)
						if got := readFile(t, out); !bytes.Equal(got, want) {
							t.Errorf("%s: differs from BLAST+ on the original database: %s", run.name, refsearch.Diff(got, want))
						}
					}
				})
			}
			// Reports regenerated from the volumes name the database, its
			// title and date as BLAST+ does on the original, and print
			// its taxonomy (XML2).
			for _, code := range []int{0, 16, 11} {
				t.Run(fmt.Sprintf("outfmt=%d", code), func(t *testing.T) {
					want, err := refsearch.ReportBatches(context.Background(), tc.program, src.Path(), src.Queries, strconv.Itoa(code), "-max_target_seqs", "500")
					if err != nil {
						t.Fatal(err)
					}
					if code == 16 && !bytes.Contains(want, []byte("Fictus")) {
						t.Fatal("the XML2 reference names no taxon: the test could not see taxonomy lost")
					}
					dir := t.TempDir()
					out := filepath.Join(dir, "out")
					mustRun(t, mpiTimeout, append([]string{empty}, mpiEnv...), b.engine, "--workers", "2", "--database", db,
						"--queries", src.Queries, "--program", tc.program, "--outfmt", strconv.Itoa(code), "--output", out,
						"--cache-dir", filepath.Join(dir, "cache"))
					if got := readFile(t, out); !bytes.Equal(got, want) {
						t.Errorf("outfmt %d differs from BLAST+ on the original database: %s", code, refsearch.Diff(got, want))
					}
				})
			}
		})
	}
}

// hasNewLine reports whether some line of a is not a line of b.
func hasNewLine(a, b []byte) bool {
	lines := map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		lines[l] = true
	}
	for _, l := range strings.Split(string(a), "\n") {
		if !lines[l] {
			return true
		}
	}
	return false
}
