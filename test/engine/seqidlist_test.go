package engine_e2e

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/bio/blastdb/blastdbtest"
	"github.com/blastfleet/blastfleet/test/support/refsearch"
	"github.com/blastfleet/blastfleet/test/support/synth"
)

// seqidColumns show which of a merged sequence's deflines a list kept.
const seqidColumns = "6 qseqid sseqid sallseqid pident length evalue bitscore stitle"

// TestSeqidListEqualsBLAST shards NCBI-style databases (several volumes,
// merged deflines) with `db shard --blastdb` and searches them with
// -seqidlist and -negative_seqidlist, comparing byte for byte with BLAST+
// given the same list file on the original database: lists naming
// sequences of every shard (in the forms BLAST matches: without version,
// lower case, typed, and ids the database lacks), of one shard only, a
// merged sequence's second defline, and negative lists whose entries lie
// in some shards only (BLAST+ 2.12 crashes on a negative list naming
// sequences outside the volumes it searches). Every shard is its own
// group (--group-bytes 1), in-process and under mpirun. A list naming no
// sequence of the database is refused before any search.
func TestSeqidListEqualsBLAST(t *testing.T) {
	requireTools(t, "mpirun", "blastn", "blastp", "makeblastdb", "blastdbcmd")
	b := bins(t)
	for _, tc := range []struct {
		program string
		search  []string // BLAST options of both searches
		opts    blastdbtest.Options
	}{
		{"blastn", nil, blastdbtest.Options{Name: "seqnt", VolumeMax: 3000, Synth: synth.Options{Seed: 31, Families: 8, Members: 8,
			MinLen: 500, MaxLen: 900, Mutation: 0.03, Queries: 12, QueryFrac: 0.5, Unrelated: 6, Duplicates: 4}}},
		// One volume: db shard rebuilds it in smaller ones, and BLAST's
		// approximate nucleotide letters still follow the original's.
		{"blastn", nil, blastdbtest.Options{Name: "seqnt1", Synth: synth.Options{Seed: 33, Families: 8, Members: 8,
			MinLen: 500, MaxLen: 900, Mutation: 0.03, Queries: 12, QueryFrac: 0.5, Unrelated: 6, Duplicates: 4}}},
		// blastp's defaults (composition-based statistics): subjects of
		// equal printed E-value are ordered by digits tabular output does
		// not print, which a tie-break search under the list's
		// statistics finds.
		{"blastp", nil, blastdbtest.Options{Name: "seqnr", Protein: true, VolumeMax: 3000, Synth: synth.Options{Seed: 32, Families: 8, Members: 6,
			MinLen: 150, MaxLen: 300, Mutation: 0.15, Queries: 10, QueryFrac: 0.5, Unrelated: 6, Duplicates: 4}}},
	} {
		t.Run(tc.program+"/"+tc.opts.Name, func(t *testing.T) {
			src, err := blastdbtest.Build(t.TempDir(), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			db := filepath.Join(t.TempDir(), "db")
			mustRun(t, mpiTimeout, nil, b.cli, "db", "shard", "--blastdb", filepath.Join(src.Packed, src.Name),
				"--shards", "3", "--output", db, "--work-dir", t.TempDir())
			accs := accessions(t, src.Path())
			if len(accs) < 40 {
				t.Fatalf("%d sequences: the test wants more", len(accs))
			}
			reference := func(args ...string) []byte {
				out, err := refsearch.SearchBatches(context.Background(), tc.program, src.Path(), src.Queries, seqidColumns,
					append(append([]string{"-max_target_seqs", "500"}, tc.search...), args...)...)
				if err != nil {
					t.Fatal(err)
				}
				return out
			}
			all := reference()
			n := len(accs)
			first, second := accs[2][0], accs[2][1] // a merged sequence (blastdbtest merges every fifth)
			lists := t.TempDir()
			for _, c := range []struct {
				name, option string
				ids          []string
				mpi          bool
			}{
				{"across shards", "seqidlist", append(every(accs, 3, 0), strings.TrimSuffix(accs[1][0], ".1"),
					strings.ToLower(accs[n-2][0]), "ref|"+accs[n/2][0]+"|", "XX_999999.1", second), true},
				// The first shard holds none: its groups are skipped.
				{"last sequences only", "seqidlist", every(accs[n-12:n-2], 1, 0), false},
				{"negative", "negative_seqidlist", append(every(accs, 4, 1), first, "XX_999999.1"), true},
				{"negative, first shard only", "negative_seqidlist", []string{accs[0][0], accs[3][0], first, second}, false},
			} {
				t.Run(c.name, func(t *testing.T) {
					list := filepath.Join(lists, strings.ReplaceAll(c.name, " ", "-")+".txt")
					writeFile(t, list, []byte(strings.Join(c.ids, "\n")+"\n"))
					want := reference("-"+c.option, list)
					// E-values come from the listed sequences: the
					// reference is no subset of the unlisted one, so
					// whole-database statistics would fail the test.
					if !hasNewLine(want, all) {
						t.Fatal("the list's reference lines are all in the unlisted one: the test could not tell the statistics apart")
					}
					runs := [][]string{{"--workers", "2", "--group-bytes", "1"}}
					if c.mpi {
						runs = append(runs, nil)
					}
					for _, args := range runs {
						d := t.TempDir()
						out := filepath.Join(d, "out.tsv")
						argv := []string{b.engine}
						if args == nil {
							argv, args = append(mpirun(3), b.engine), []string{"--group-bytes", "1"}
						}
						argv = append(argv, "--database", db, "--queries", src.Queries, "--program", tc.program,
							"--outfmt", seqidColumns, "--output", out, "--cache-dir", filepath.Join(d, "cache"),
							"--blast-option=-"+c.option+"="+list)
						for i := 0; i < len(tc.search); i += 2 {
							argv = append(argv, "--blast-option="+tc.search[i]+"="+tc.search[i+1])
						}
						mustRun(t, mpiTimeout, mpiEnv, append(argv, args...)...)
						if got := readFile(t, out); !bytes.Equal(got, want) {
							t.Errorf("%v: differs from BLAST+ on the original database: %s", args, refsearch.Diff(got, want))
						}
					}
				})
			}
			t.Run("no listed id in the database", func(t *testing.T) {
				list := filepath.Join(lists, "absent.txt")
				writeFile(t, list, []byte("XX_999998.1\nXX_999999\n"))
				d := t.TempDir()
				r := run(t, mpiTimeout, nil, b.engine, "--workers", "2", "--database", db, "--queries", src.Queries,
					"--program", tc.program, "--outfmt", seqidColumns, "--output", filepath.Join(d, "out.tsv"),
					"--cache-dir", filepath.Join(d, "cache"), "--blast-option=-seqidlist="+list)
				if r.exitCode == 0 || !strings.Contains(r.stderr, "none of its ids is in database") {
					t.Errorf("a list of absent ids: want a refusal naming it, got %s", r)
				}
				noOutputLeft(t, filepath.Join(d, "out.tsv"))
			})
		})
	}
}

// accessions are the database's sequences' ids, in OID order, each
// sequence's deflines in order (blastdbcmd).
func accessions(t *testing.T, db string) [][]string {
	t.Helper()
	out, err := exec.Command("blastdbcmd", "-db", db, "-entry", "all", "-outfmt", "%o %a").Output()
	if err != nil {
		t.Fatalf("blastdbcmd: %v", err)
	}
	var accs [][]string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var oid int
		var acc string
		if _, err := fmt.Sscanf(l, "%d %s", &oid, &acc); err != nil {
			t.Fatalf("blastdbcmd line %q: %v", l, err)
		}
		for len(accs) <= oid {
			accs = append(accs, nil)
		}
		accs[oid] = append(accs[oid], acc)
	}
	return accs
}

// every is the first accession of every k-th sequence from the i-th.
func every(accs [][]string, k, i int) []string {
	var ids []string
	for ; i < len(accs); i += k {
		ids = append(ids, accs[i][0])
	}
	return ids
}
