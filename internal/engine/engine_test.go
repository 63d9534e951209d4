package engine_test

import (
	"bytes"
	"context"
	"fmt"
	spec "github.com/blastfleet/blastfleet/internal/plan/search"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-logr/logr/testr"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/engine"
	"github.com/blastfleet/blastfleet/internal/engine/merge"
	"github.com/blastfleet/blastfleet/internal/engine/output"
	"github.com/blastfleet/blastfleet/internal/plan/shard"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/refsearch"
	"github.com/blastfleet/blastfleet/test/support/synth"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

func requireBLAST(t *testing.T) { testenv.RequireTools(t, "blastn", "makeblastdb") }

// fixture is a database in FASTA, its unsharded BLAST DB and queries.
type fixture struct {
	dir, fasta, queries, unsharded string
	dbtype                         manifest.DBType
}

func synthFixture(t *testing.T, o synth.Options) *fixture {
	t.Helper()
	requireBLAST(t)
	dir := t.TempDir()
	f := &fixture{dir: dir, fasta: filepath.Join(dir, "db.fa"), queries: filepath.Join(dir, "q.fa"), dbtype: manifest.Nucleotide}
	if o.Protein {
		f.dbtype = manifest.Protein
	}
	var db, q bytes.Buffer
	if err := synth.Write(o, &db, &q); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.fasta, db.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.queries, q.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var err error
	if f.unsharded, err = refsearch.MakeDB(context.Background(), f.fasta, string(f.dbtype), dir); err != nil {
		t.Fatal(err)
	}
	return f
}

// shardTo builds n shards of the fixture into a store location.
func (f *fixture) shardTo(t *testing.T, n int, location string) {
	t.Helper()
	st, err := objstore.Open(context.Background(), location)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := shard.Build(context.Background(), shard.Options{Input: f.fasta, Type: f.dbtype, Shards: n,
		Output: st, Name: "testdb", WorkDir: t.TempDir()}); err != nil {
		t.Fatalf("sharding into %d: %v", n, err)
	}
}

func (f *fixture) shards(t *testing.T, n int) string {
	t.Helper()
	loc := filepath.Join(f.dir, fmt.Sprintf("shards-%d", n))
	if _, err := os.Stat(filepath.Join(loc, manifest.FileName)); err != nil {
		f.shardTo(t, n, loc)
	}
	return loc
}

type search struct {
	program       blast.Program
	outfmt        string
	maxTargetSeqs int
	evalue        float64
	topHits       string
	options       []string
	groupBytes    int64
	blockLetters  int
	workers       int
}

func (s search) config(t *testing.T, db, queries, out string) *engine.Config {
	t.Helper()
	format, err := blast.ParseFormat(s.outfmt)
	if err != nil {
		t.Fatal(err)
	}
	th, err := merge.ParseTopHits(s.topHits)
	if err != nil {
		t.Fatal(err)
	}
	var opts []blast.Option
	for _, o := range s.options {
		opt, err := blast.ParseOption(o)
		if err != nil {
			t.Fatal(err)
		}
		opts = append(opts, opt)
	}
	mts := s.maxTargetSeqs
	if mts == 0 {
		mts = blast.DefaultMaxTargetSeqs
	}
	return &engine.Config{Database: db, Queries: queries, Output: out, Threads: 1,
		Spec:         spec.Spec{Program: s.program, Format: format, MaxTargetSeqs: mts, Evalue: s.evalue, Options: opts, TopHits: th},
		BlockLetters: s.blockLetters, GroupBytes: s.groupBytes, CacheDir: t.TempDir(),
		WriteBuffer: 4 << 20, Strategy: output.WorkerMerge{}, Log: testr.New(t)}
}

// reference runs the search the engine must reproduce: each query alone on
// the unsharded database (docs/concepts.md#the-correctness-contract).
func (s search) reference(t *testing.T, f *fixture, untruncated bool) []byte {
	t.Helper()
	format, _ := blast.ParseFormat(s.outfmt)
	var args []string
	mts := s.maxTargetSeqs
	if mts == 0 {
		mts = blast.DefaultMaxTargetSeqs
	}
	if untruncated {
		mts = 1_000_000
	}
	args = append(args, "-max_target_seqs", fmt.Sprint(mts))
	if s.evalue > 0 {
		args = append(args, "-evalue", fmt.Sprint(s.evalue))
	}
	for _, o := range s.options {
		opt, _ := blast.ParseOption(o)
		args = append(args, blast.Args([]blast.Option{opt})...)
	}
	out, err := refsearch.SearchBatches(context.Background(), string(s.program), f.unsharded, f.queries, format.UserArg(), args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (s search) run(t *testing.T, db, queries, out string) *engine.Summary {
	t.Helper()
	sum, err := engine.RunLocal(context.Background(), s.config(t, db, queries, out), s.workers)
	if err != nil {
		t.Fatalf("engine: %v", err)
	}
	return sum
}

func nuclFamilies() synth.Options {
	return synth.Options{Seed: 7, Families: 24, Members: 10, MinLen: 300, MaxLen: 900, Mutation: 0.04,
		Queries: 30, QueryFrac: 0.6, Unrelated: 40, Duplicates: 2}
}

func TestBlastnEqualsUnsharded(t *testing.T) {
	f := synthFixture(t, nuclFamilies())
	cases := []struct {
		shards, workers int
		groupBytes      int64
		blockLetters    int
	}{
		{1, 1, 0, 0},
		{3, 2, 0, 0},
		{3, 4, 1, 2000}, // one shard per task: the merge spans tasks
		{8, 2, 1, 0},
		{8, 4, 1, 3000},
	}
	s := search{program: blast.Blastn, outfmt: "6 qseqid sseqid pident length mismatch gapopen qstart qend sstart send evalue bitscore"}
	want := s.reference(t, f, false)
	if bytes.Count(want, []byte("\n")) < 200 {
		t.Fatalf("reference has only %d lines; the fixture should give real hits", bytes.Count(want, []byte("\n")))
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("shards=%d/workers=%d/groupBytes=%d", c.shards, c.workers, c.groupBytes), func(t *testing.T) {
			s := s
			s.workers, s.groupBytes, s.blockLetters = c.workers, c.groupBytes, c.blockLetters
			out := filepath.Join(t.TempDir(), "out.tsv")
			sum := s.run(t, f.shards(t, c.shards), f.queries, out)
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if d := refsearch.Diff(got, want); d != "" {
				t.Fatalf("merged output differs from the unsharded search: %s", d)
			}
			if sum.Hits != int64(bytes.Count(want, []byte("\n"))) {
				t.Errorf("summary reports %d hits, output has %d", sum.Hits, bytes.Count(want, []byte("\n")))
			}
		})
	}
}

func TestEvalueCutoffAndColumns(t *testing.T) {
	f := synthFixture(t, nuclFamilies())
	// The user's columns lack sseqid and bitscore: the engine asks BLAST
	// for them and strips them again.
	s := search{program: blast.Blastn, outfmt: "6 qaccver saccver evalue length", evalue: 1e-40,
		options: []string{"-word_size=15"}, workers: 3, groupBytes: 1}
	want := s.reference(t, f, false)
	out := filepath.Join(t.TempDir(), "out.tsv")
	s.run(t, f.shards(t, 3), f.queries, out)
	got, _ := os.ReadFile(out)
	if d := refsearch.Diff(got, want); d != "" {
		t.Fatalf("%s", d)
	}
}

func TestTopHitsExactAndOverfetch(t *testing.T) {
	f := synthFixture(t, nuclFamilies())
	const n = 4 // fewer than the hits per query (family members)
	s := search{program: blast.Blastn, outfmt: "6 qseqid sseqid evalue bitscore", maxTargetSeqs: n,
		workers: 2, groupBytes: 1}
	untruncated := s.reference(t, f, true)
	exactTop := refsearch.TopN(untruncated, n, 0, 1)

	s.topHits = "exact"
	out := filepath.Join(t.TempDir(), "exact.tsv")
	s.run(t, f.shards(t, 3), f.queries, out)
	got, _ := os.ReadFile(out)
	if d := refsearch.Diff(got, exactTop); d != "" {
		t.Fatalf("--top-hits exact is not the exact global top %d: %s", n, d)
	}

	s.topHits = "overfetch"
	out = filepath.Join(t.TempDir(), "overfetch.tsv")
	s.run(t, f.shards(t, 3), f.queries, out)
	got, _ = os.ReadFile(out)
	recall := refsearch.Recall(got, exactTop, 0, 1)
	blastOwn := refsearch.Recall(s.reference(t, f, false), exactTop, 0, 1)
	t.Logf("recall of the exact top %d: overfetch %.4f, unsharded BLAST %.4f", n, recall, blastOwn)
	if recall < blastOwn {
		t.Errorf("overfetch recall %.4f is below BLAST's own %.4f", recall, blastOwn)
	}
}

func TestBlastpPlastExample(t *testing.T) {
	requireBLAST(t)
	const dbgz = "/usr/share/doc/plast-example/db/tursiops.fa.gz"
	const qgz = "/usr/share/doc/plast-example/db/query.fa.gz"
	if _, err := os.Stat(dbgz); err != nil {
		if testenv.RequireReal() {
			t.Fatal("plast-example is not installed (hack/install-deps.sh)")
		}
		t.Skip("plast-example is not installed")
	}
	// A slice of the real set keeps the test short on two cores.
	dir := t.TempDir()
	f := &fixture{dir: dir, fasta: filepath.Join(dir, "db.fa"), queries: filepath.Join(dir, "q.fa"), dbtype: manifest.Protein}
	if err := firstRecords(dbgz, f.fasta, 4000); err != nil {
		t.Fatal(err)
	}
	if err := firstRecords(qgz, f.queries, 10); err != nil {
		t.Fatal(err)
	}
	var err error
	if f.unsharded, err = refsearch.MakeDB(context.Background(), f.fasta, "prot", dir); err != nil {
		t.Fatal(err)
	}
	// Protein E-values depend on the subject's length, and BLAST orders
	// subjects whose printed E-values tie by digits it does not print.
	// One search of all shards (one group per task, the default when the
	// cache holds the database) reproduces BLAST line for line; across
	// groups the hits and values are the same, and only the order inside
	// such ties may differ.
	t.Run("one group", func(t *testing.T) {
		s := search{program: blast.Blastp, outfmt: "6 std", workers: 2}
		want := s.reference(t, f, false)
		out := filepath.Join(t.TempDir(), "out.tsv")
		s.run(t, f.shards(t, 3), f.queries, out)
		got, _ := os.ReadFile(out)
		if d := refsearch.Diff(got, want); d != "" {
			t.Fatalf("%s", d)
		}
	})
	t.Run("group per shard", func(t *testing.T) {
		s := search{program: blast.Blastp, outfmt: "6 std", workers: 2, groupBytes: 1}
		want := s.reference(t, f, false)
		out := filepath.Join(t.TempDir(), "out.tsv")
		s.run(t, f.shards(t, 3), f.queries, out)
		got, _ := os.ReadFile(out)
		if d := refsearch.SameUpToTies(got, want, 0, 1, 10); d != "" {
			t.Fatalf("%s", d)
		}
		if d := refsearch.Diff(got, want); d != "" {
			t.Logf("order differs only inside printed E-value ties: %s", d)
		}
	})
}

// firstRecords copies the first n FASTA records of a gzip file.
func firstRecords(gz, out string, n int) error {
	data, err := exec.Command("gzip", "-dc", gz).Output()
	if err != nil {
		return err
	}
	recs := strings.SplitAfter(string(data), "\n>")
	if len(recs) > n {
		recs = recs[:n]
	}
	text := strings.Join(recs, "")
	text = strings.TrimSuffix(text, ">")
	return os.WriteFile(out, []byte(text), 0o644)
}

// Ids shaped like accessions are printed by BLAST as typed ids
// ("ab003001" as "gb|ab003001|"); the merge must still find their ordinals.
func TestAccessionShapedIDs(t *testing.T) {
	f := synthFixture(t, nuclFamilies())
	data, err := os.ReadFile(f.fasta)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.NewReplacer(">fam", ">ab", "_m", "", ">rnd", ">xyz").Replace(string(data))
	if err := os.WriteFile(f.fasta, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if f.unsharded, err = refsearch.MakeDB(context.Background(), f.fasta, "nucl", f.dir); err != nil {
		t.Fatal(err)
	}
	s := search{program: blast.Blastn, outfmt: "6 qseqid sseqid evalue bitscore", workers: 2, groupBytes: 1}
	want := s.reference(t, f, false)
	if !strings.Contains(string(want), "|") {
		t.Fatalf("BLAST printed no typed ids; the test does not exercise them:\n%.300s", want)
	}
	out := filepath.Join(t.TempDir(), "out.tsv")
	s.run(t, f.shards(t, 3), f.queries, out)
	got, _ := os.ReadFile(out)
	if d := refsearch.Diff(got, want); d != "" {
		t.Fatalf("%s", d)
	}
}

// The static splits change who searches what, never the output: on real
// BLAST it still equals the unsharded search, with one group or a group
// per shard, on a file and in a campaign.
func TestStaticSchedulesEqualUnsharded(t *testing.T) {
	f := synthFixture(t, nuclFamilies())
	s := search{program: blast.Blastn, outfmt: "6 std", workers: 3}
	want := s.reference(t, f, false)
	for _, sched := range []engine.Schedule{engine.LengthSplit, engine.WeightSplit} {
		for _, groupBytes := range []int64{0, 1} {
			t.Run(fmt.Sprintf("%s/groupBytes=%d", sched, groupBytes), func(t *testing.T) {
				s := s
				s.groupBytes = groupBytes
				out := filepath.Join(t.TempDir(), "out.tsv")
				cfg := s.config(t, f.shards(t, 3), f.queries, out)
				cfg.Schedule = sched
				sum, err := engine.RunLocal(context.Background(), cfg, s.workers)
				if err != nil {
					t.Fatal(err)
				}
				got, _ := os.ReadFile(out)
				if d := refsearch.Diff(got, want); d != "" {
					t.Fatalf("%s: output differs from the unsharded search: %s", sched, d)
				}
				if sum.Schedule != sched.String() || sum.Backend != "blast" {
					t.Errorf("summary: schedule %q backend %q", sum.Schedule, sum.Backend)
				}
			})
		}
		t.Run(sched.String()+"/campaign", func(t *testing.T) {
			loc, st := planCampaign(t, f, f.shards(t, 3), s, 7, 30)
			l, err := ledger.Open(context.Background(), st, ledger.Options{})
			if err != nil {
				t.Fatal(err)
			}
			cfg := s.config(t, f.shards(t, 3), f.queries, loc)
			cfg.Schedule = sched
			cfg.Campaign = &engine.Campaign{Location: loc, Ledger: l, Holder: "p0"}
			if _, err := engine.RunLocal(context.Background(), cfg, s.workers); err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := ledger.StreamResults(context.Background(), st, &got); err != nil {
				t.Fatal(err)
			}
			if d := refsearch.Diff(got.Bytes(), want); d != "" {
				t.Fatalf("campaign result differs from the unsharded search: %s", d)
			}
		})
	}
}

// A mixed decomposition (the first batches against the whole database,
// the last one against halves of it, so that both workers finish
// together) prints what one BLAST+ run of the file prints, whatever the
// shards and workers.
func TestMixedDecompositionEqualsOneRun(t *testing.T) {
	o := nuclFamilies()
	o.Queries, o.MinLen, o.MaxLen = 270, 500, 900 // 3 batches of -task blastn's 50,000 letters, the last small
	f := synthFixture(t, o)
	s := search{program: blast.Blastn, outfmt: "6 qseqid sseqid pident length mismatch gapopen qstart qend sstart send evalue bitscore",
		options: []string{"-task=blastn"}}
	want := s.reference(t, f, false)
	for _, c := range []struct{ shards, workers int }{{4, 2}, {2, 2}, {4, 3}} {
		t.Run(fmt.Sprintf("shards=%d/workers=%d", c.shards, c.workers), func(t *testing.T) {
			s := s
			s.workers = c.workers
			out := filepath.Join(t.TempDir(), "out.tsv")
			sum := s.run(t, f.shards(t, c.shards), f.queries, out)
			// On 3 workers the plan is every batch in thirds of the database.
			if mixed := strings.Contains(sum.Decomposition, "then database segmentation for the last"); sum.Batches != 3 || mixed != (c.workers == 2) {
				t.Fatalf("%d batches, decomposition %q: want 3 batches, and on 2 workers a mixed plan", sum.Batches, sum.Decomposition)
			}
			if sum.Tasks <= sum.Blocks {
				t.Errorf("%d tasks for %d blocks: the tail was not searched against several groups", sum.Tasks, sum.Blocks)
			}
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if d := refsearch.Diff(got, want); d != "" {
				t.Fatalf("output differs from one BLAST+ run of the file: %s", d)
			}
		})
	}
}
