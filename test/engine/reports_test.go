package engine_e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/blastvol"
	"github.com/blastfleet/blastfleet/internal/manifest"
	"github.com/blastfleet/blastfleet/internal/objstore"
	"github.com/blastfleet/blastfleet/internal/refsearch"
	"github.com/blastfleet/blastfleet/internal/regen"
	"github.com/blastfleet/blastfleet/internal/synth"
)

// TestReports: every report format (-outfmt 0, 5, 7, 11, 15, 16) the engine
// regenerates equals BLAST+'s report of each query searched alone on the
// unsharded database, framed as BLAST+ frames one run of all queries,
// byte for byte: blastn and blastp, one shard group and (formats 0 and
// 11, under mpirun) one per shard, -max_target_seqs truncating and not;
// and blast_formatter reads the archive (11) whole.
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
			dir := t.TempDir()
			var dbFA, qFA bytes.Buffer
			if err := synth.Write(c.data, &dbFA, &qFA); err != nil {
				t.Fatal(err)
			}
			fa, queries := filepath.Join(dir, "db.fa"), filepath.Join(dir, "q.fa")
			writeFile(t, fa, dbFA.Bytes())
			// A query that hits nothing, between others.
			writeFile(t, queries, append([]byte(">nohits nothing like it\n"+map[string]string{"nucl": "ACGTTGCATTGACCAG", "prot": "WWCCMMHHWWCCMMHH"}[c.dbtype]+"\n"), qFA.Bytes()...))
			ref, err := refsearch.MakeNamedDB(context.Background(), fa, c.dbtype, dir, "famdb")
			if err != nil {
				t.Fatal(err)
			}
			db := filepath.Join(dir, "sharded")
			mustRun(t, 60*time.Second, nil, b.cli, "db", "shard", "--input", fa, "--type", c.dbtype, "--name", "famdb",
				"--shards", "3", "--output", db, "--work-dir", t.TempDir())
			// The database's date is its shards' (the newest); the
			// reference, built another minute maybe, is given it.
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
			date := regen.DatabaseDate(m.Shards)
			if err := blastvol.SetDate(ref+map[string]string{"nucl": ".nin", "prot": ".pin"}[c.dbtype], date); err != nil {
				t.Fatal(err)
			}
			for _, code := range []int{0, 5, 7, 11, 15, 16} {
				outfmt := strconv.Itoa(code)
				if code == 7 {
					outfmt = "7 qseqid sseqid pident length evalue bitscore"
				}
				for _, mts := range []int{500, 3} {
					want, err := refsearch.ReportAlone(context.Background(), c.program, ref, queries, code, outfmt, "-max_target_seqs", strconv.Itoa(mts))
					if err != nil {
						t.Fatal(err)
					}
					cases := []struct {
						name string
						np   int
						args []string
					}{{"workers=2", 0, []string{"--workers", "2"}}}
					if mts == 500 && code == 5 {
						// Every output strategy writes the regenerated pieces.
						for _, st := range strategies[1:] {
							cases = append(cases, struct {
								name string
								np   int
								args []string
							}{"workers=2/strategy=" + st, 0, []string{"--workers", "2", "--strategy", st, "--write-buffer", "64KiB"}})
						}
					}
					if mts == 500 && (code == 0 || code == 11) {
						cases = append(cases, struct {
							name string
							np   int
							args []string
						}{"np=3/groups=per-shard", 3, []string{"--group-bytes", "1", "--block-letters", "300"}})
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
						if code == 11 && rc.np == 0 {
							formatArchive(t, c.program, ref, queries, out, mts)
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

// formatArchive: blast_formatter reads the engine's archive whole (with
// the unsharded database found by its name) and prints each query's hits
// as BLAST+ does for the query searched alone.
func formatArchive(t *testing.T, program, ref, queries, archive string, mts int) {
	t.Helper()
	want, err := refsearch.SearchAlone(context.Background(), program, ref, queries, "6 std", "-max_target_seqs", strconv.Itoa(mts))
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
