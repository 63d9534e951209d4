package engine_e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/bio/blastvol"
	"github.com/blastfleet/blastfleet/internal/bio/fasta"
	"github.com/blastfleet/blastfleet/internal/engine/regen"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/refsearch"
	"github.com/blastfleet/blastfleet/test/support/synth"
)

// TestReports: every report format (-outfmt 0, 5, 7, 11, 15, 16) the engine
// regenerates equals BLAST+'s report of the whole query file in its
// batches on the unsharded database (refsearch.ReportBatches), byte for
// byte: blastn and blastp, one shard group and (formats 0 and 11, under
// mpirun) one per shard, -max_target_seqs truncating and not; with
// --batching alone, each query's report searched alone, framed as one run
// (refsearch.ReportAlone); and blast_formatter reads the archive (11)
// whole.
func TestReports(t *testing.T) {
	requireTools(t, "mpirun", "blastn", "blastp", "makeblastdb", "blastdbcmd", "blastdb_aliastool")
	b := bins(t)
	for _, c := range []struct {
		program, dbtype string
		data            synth.Options
	}{
		{"blastn", "nucl", synth.Options{Seed: 21, Families: 6, Members: 8, MinLen: 300, MaxLen: 700, Mutation: 0.03,
			Queries: 8, QueryFrac: 0.6, Unrelated: 20, Duplicates: 3, FlankMax: 15}},
		{"blastp", "prot", synth.Options{Seed: 22, Protein: true, Families: 6, Members: 8, MinLen: 150, MaxLen: 300, Mutation: 0.15,
			Queries: 6, QueryFrac: 0.6, Unrelated: 20, Duplicates: 3}},
	} {
		t.Run(c.program, func(t *testing.T) {
			// A query that hits nothing, before the others.
			nohits := ">nohits nothing like it\n" + map[string]string{"nucl": "ACGTTGCATTGACCAG", "prot": "WWCCMMHHWWCCMMHH"}[c.dbtype] + "\n"
			ref, db, queries := reportData(t, b, c.data, c.dbtype, nohits)
			for _, code := range []int{0, 5, 7, 11, 15, 16} {
				outfmt := strconv.Itoa(code)
				if code == 7 {
					outfmt = "7 qseqid sseqid pident length evalue bitscore"
				}
				for _, mts := range []int{500, 3} {
					want, err := refsearch.ReportBatches(context.Background(), c.program, ref, queries, outfmt, "-max_target_seqs", strconv.Itoa(mts))
					if err != nil {
						t.Fatal(err)
					}
					type reportCase struct {
						name string
						np   int
						args []string
					}
					cases := []reportCase{{"workers=2", 0, []string{"--workers", "2"}}}
					if mts == 500 && code == 11 {
						cases = append(cases, reportCase{"workers=2/batching=alone", 0, []string{"--workers", "2", "--batching", "alone"}})
					}
					if mts == 500 && code == 5 {
						// Every output strategy writes the regenerated pieces.
						for _, st := range strategies[1:] {
							cases = append(cases, reportCase{"workers=2/strategy=" + st, 0, []string{"--workers", "2", "--strategy", st, "--write-buffer", "64KiB"}})
						}
					}
					if mts == 500 && (code == 0 || code == 11) {
						cases = append(cases, reportCase{"np=3/groups=per-shard", 3, []string{"--group-bytes", "1", "--block-letters", "300"}})
					}
					for _, rc := range cases {
						name := fmt.Sprintf("outfmt=%d/max-target-seqs=%d/%s", code, mts, rc.name)
						out := filepath.Join(t.TempDir(), "out")
						argv := []string{b.engine}
						if rc.np > 0 {
							argv = append(mpirun(rc.np), b.engine)
						}
						argv = append(argv, "--database", db, "--queries", queries, "--program", c.program, "--outfmt", outfmt,
							"--max-target-seqs", strconv.Itoa(mts), "--output", out, "--cache-dir", filepath.Join(t.TempDir(), "cache"))
						if mts < 500 {
							argv = append(argv, "--top-hits", "exact")
						}
						mustRun(t, mpiTimeout, mpiEnv, append(argv, rc.args...)...)
						got := readFile(t, out)
						alone := slices.Contains(rc.args, "alone")
						if code == 11 && rc.np == 0 {
							formatArchive(t, c.program, ref, queries, out, mts, alone)
						}
						want := want
						if alone {
							if want, err = refsearch.ReportAlone(context.Background(), c.program, ref, queries, code, outfmt, "-max_target_seqs", strconv.Itoa(mts)); err != nil {
								t.Fatal(err)
							}
						}
						if !bytes.Equal(got, want) {
							t.Errorf("%s: %s", name, refsearch.Diff(got, want))
							_ = os.WriteFile(filepath.Join(os.TempDir(), "reports-"+c.program+"-"+strconv.Itoa(code)+".got"), got, 0o644)
							_ = os.WriteFile(filepath.Join(os.TempDir(), "reports-"+c.program+"-"+strconv.Itoa(code)+".want"), want, 0o644)
						}
					}
				}
			}
		})
	}
}

// reportData writes data's database, sharded in 3 (db) and unsharded
// (ref, named famdb and dated as the shards), and its queries after
// before.
func reportData(t *testing.T, b binaries, data synth.Options, dbtype, before string) (ref, db, queries string) {
	t.Helper()
	dir := t.TempDir()
	var dbFA, qFA bytes.Buffer
	if err := synth.Write(data, &dbFA, &qFA); err != nil {
		t.Fatal(err)
	}
	fa, queries := filepath.Join(dir, "db.fa"), filepath.Join(dir, "q.fa")
	writeFile(t, fa, dbFA.Bytes())
	writeFile(t, queries, append([]byte(before), qFA.Bytes()...))
	ref, err := refsearch.MakeNamedDB(context.Background(), fa, dbtype, dir, "famdb")
	if err != nil {
		t.Fatal(err)
	}
	db = filepath.Join(dir, "sharded")
	mustRun(t, 60*time.Second, nil, b.cli, "db", "shard", "--input", fa, "--type", dbtype, "--name", "famdb",
		"--shards", "3", "--output", db, "--work-dir", t.TempDir())
	// The database's date is its shards' (the newest); the reference,
	// built another minute maybe, is given it.
	st, err := objstore.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Load(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range m.Shards {
		if s.Date == "" {
			t.Fatalf("shard %s: no date in the manifest", s.Name)
		}
	}
	if err := blastvol.SetDate(ref+map[string]string{"nucl": ".nin", "prot": ".pin"}[dbtype], regen.DatabaseDate(m.Shards)); err != nil {
		t.Fatal(err)
	}
	return ref, db, queries
}

// TestReportsInBatches: on data where a query's report depends on the
// queries searched beside it (-task blastn, a query gaining a short HSP at
// its first letters in its BLAST+ batch), the engine's regenerated
// reports equal BLAST+'s report of the whole file in its batches, and not
// the queries' reports searched alone; -max_target_seqs 3 keeps 3 of the
// family members every query hits, so the queries of a batch share
// subjects they did not all keep.
func TestReportsInBatches(t *testing.T) {
	requireTools(t, "mpirun", "blastn", "makeblastdb", "blastdbcmd", "blastdb_aliastool")
	b := bins(t)
	data := synth.BatchingSensitive()
	data.Seed, data.Queries, data.LongQueries = 1, 28, 10 // 2 batches of blastn's 50,000 letters (31 and 7 queries)
	ref, db, queries := reportData(t, b, data, "nucl", "")
	for _, c := range []struct {
		code, mts int
	}{{0, 500}, {0, 3}, {11, 500}} {
		name := fmt.Sprintf("outfmt=%d/max-target-seqs=%d", c.code, c.mts)
		args := []string{"-max_target_seqs", strconv.Itoa(c.mts), "-task", "blastn"}
		want, err := refsearch.ReportBatches(context.Background(), "blastn", ref, queries, strconv.Itoa(c.code), args...)
		if err != nil {
			t.Fatal(err)
		}
		if c.code == 0 && c.mts == 500 {
			alone, err := refsearch.ReportAlone(context.Background(), "blastn", ref, queries, c.code, strconv.Itoa(c.code), args...)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Equal(alone, want) {
				t.Fatalf("%s: the data do not tell batches from queries searched alone", name)
			}
		}
		out := filepath.Join(t.TempDir(), "out")
		mustRun(t, mpiTimeout, mpiEnv, b.engine, "--database", db, "--queries", queries, "--program", "blastn", "--outfmt", strconv.Itoa(c.code),
			"--max-target-seqs", strconv.Itoa(c.mts), "--top-hits", "exact", "--blast-option=-task=blastn", "--workers", "2",
			"--output", out, "--cache-dir", filepath.Join(t.TempDir(), "cache"))
		if got := readFile(t, out); !bytes.Equal(got, want) {
			t.Errorf("%s: %s", name, refsearch.Diff(got, want))
			_ = os.WriteFile(filepath.Join(os.TempDir(), "batches-"+strconv.Itoa(c.code)+".got"), got, 0o644)
			_ = os.WriteFile(filepath.Join(os.TempDir(), "batches-"+strconv.Itoa(c.code)+".want"), want, 0o644)
		}
	}
	batchMetadata(t, b, db, queries)
}

// batchMetadata: under --transfer metadata, one block of both batches,
// each query's line names the first query of its BLAST+ batch, and a
// query cut to -max_target_seqs says it may have more.
func batchMetadata(t *testing.T, b binaries, db, queries string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	mustRun(t, mpiTimeout, mpiEnv, b.engine, "--database", db, "--queries", queries, "--program", "blastn", "--outfmt", "0",
		"--max-target-seqs", "3", "--top-hits", "exact", "--blast-option=-task=blastn", "--transfer", "metadata",
		"--block-letters", "1000000", "--output", out, "--cache-dir", filepath.Join(t.TempDir(), "cache"))
	f, err := os.Open(queries)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := fasta.ReadAll(f, queries, fasta.Nucleotide)
	if err != nil {
		t.Fatal(err)
	}
	lengths := make([]int, len(recs))
	for i, r := range recs {
		lengths[i] = len(r.Seq)
	}
	ends := blast.BatchEnds(lengths, blast.BatchLetters(blast.Blastn, []blast.Option{{Name: "task", Value: "blastn"}}, blast.BatchingBLAST))
	if len(ends) < 2 {
		t.Fatalf("%d batches, want several", len(ends))
	}
	lines := strings.Split(strings.TrimSuffix(string(readFile(t, out)), "\n"), "\n")
	if len(lines) != len(recs) {
		t.Fatalf("%d metadata lines for %d queries", len(lines), len(recs))
	}
	start := 0
	for i, l := range lines {
		if i == ends[0] {
			start, ends = ends[0], ends[1:]
		}
		md, err := regen.ParseMetadata([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		if md.Index != i+1 || md.Batch != start+1 || md.More != (len(md.Subjects) == 3) || len(md.Subjects) > 3 {
			t.Errorf("query %d: metadata %+v, want its batch to start at query %d, more %v", i+1, md, start+1, len(md.Subjects) == 3)
		}
	}
}

// formatArchive: blast_formatter reads the engine's archive whole (with
// the unsharded database found by its name) and prints each query's hits
// as BLAST+ does for the query file in its batches (alone: each query
// searched alone).
func formatArchive(t *testing.T, program, ref, queries, archive string, mts int, alone bool) {
	t.Helper()
	search := refsearch.SearchBatches
	if alone {
		search = refsearch.SearchAlone
	}
	want, err := search(context.Background(), program, ref, queries, "6 std", "-max_target_seqs", strconv.Itoa(mts))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("blast_formatter", "-archive", archive, "-outfmt", "6 std")
	cmd.Dir = filepath.Dir(ref)
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("blast_formatter: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("blast_formatter -outfmt 6 of the engine's archive: %s", refsearch.Diff(got, want))
	}
}
