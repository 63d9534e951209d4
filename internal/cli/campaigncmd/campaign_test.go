package campaigncmd

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/plan/search"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/cli"
	"github.com/blastfleet/blastfleet/internal/cli/clitest"
	"github.com/blastfleet/blastfleet/internal/plan/shard"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/synth"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// campaignFixture is a synthetic nucleotide query file and its database
// FASTA in dir.
type campaignFixture struct {
	dir, dbFasta, queries string
	queryBytes            []byte
	count                 int
	letters               int64
}

func newCampaignFixture(t *testing.T) *campaignFixture {
	t.Helper()
	f := &campaignFixture{dir: t.TempDir()}
	var db, q bytes.Buffer
	if err := synth.Write(synth.Options{Seed: 7, Families: 4, Members: 3, MinLen: 200, MaxLen: 400,
		Mutation: 0.05, Queries: 10, QueryFrac: 0.5, Unrelated: 3}, &db, &q); err != nil {
		t.Fatal(err)
	}
	f.dbFasta, f.queries, f.queryBytes = filepath.Join(f.dir, "db.fa"), filepath.Join(f.dir, "q.fa"), q.Bytes()
	clitest.WriteFile(t, f.dbFasta, db.Bytes())
	clitest.WriteFile(t, f.queries, f.queryBytes)
	for _, line := range strings.Split(q.String(), "\n") {
		if strings.HasPrefix(line, ">") {
			f.count++
		} else {
			f.letters += int64(len(strings.TrimSpace(line)))
		}
	}
	return f
}

// shardTo builds a two-shard database of the fixture at location.
func (f *campaignFixture) shardTo(t *testing.T, location string) {
	t.Helper()
	testenv.RequireTools(t, "makeblastdb")
	st, err := objstore.Open(context.Background(), location)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := shard.Build(context.Background(), shard.Options{Input: f.dbFasta, Type: manifest.Nucleotide,
		Shards: 2, Output: st, Name: "testdb", WorkDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
}

func readPlanAt(t *testing.T, loc string) *ledger.Plan {
	t.Helper()
	st, err := objstore.Open(context.Background(), loc)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ledger.ReadPlan(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCampaignPlanFlagErrors(t *testing.T) {
	dir := t.TempDir()
	q := filepath.Join(dir, "q.fa")
	clitest.WriteFile(t, q, []byte(">a\nACGT\n"))
	base := []string{"--queries", q, "--database", filepath.Join(dir, "nodb"), "--program", "blastn"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--chunk-letters", "100", "--chunk-queries", "5"}, "--chunk-letters and --chunk-queries exclude each other"},
		{nil, "one of --chunk-letters or --chunk-queries is required"},
		{[]string{"--chunk-letters", "0"}, "--chunk-letters must be ≥ 1"},
		{[]string{"--chunk-queries", "-2"}, "--chunk-queries must be ≥ 1"},
		{[]string{"--chunk-queries", "5", "--program", "blastz"}, `--program: unknown program "blastz"`},
		{[]string{"--chunk-queries", "5", "--outfmt", "18"}, "--outfmt: outfmt 18"},
		{[]string{"--chunk-queries", "5", "--program", "blastp", "--outfmt", "17"}, "BLAST+ prints SAM for blastn only, not blastp"},
		{[]string{"--chunk-queries", "5", "--transfer", "some"}, "--transfer \"some\""},
		{[]string{"--chunk-queries", "5", "--outfmt", "6 qseqid nosuch"}, `unknown column "nosuch"`},
		{[]string{"--chunk-queries", "5", "--blast-option=-out=x.tsv"}, "-out is not allowed"},
		{[]string{"--chunk-queries", "5", "--blast-option=-frobnicate=1"}, "not on the allowlist"},
		{[]string{"--chunk-queries", "5", "--blast-option=-num_threads=4"}, "-num_threads is not allowed: BLAST's threads are a worker's slots"},
		{[]string{"--chunk-queries", "5", "--top-hits", "most"}, `--top-hits "most"`},
		{[]string{"--chunk-queries", "5", "--max-target-seqs", "0"}, "--max-target-seqs must be ≥ 1"},
		{[]string{"--chunk-queries", "5", "--evalue", "-1"}, "--evalue must be > 0"},
		{[]string{"--chunk-queries", "5", "--renew-seconds", "300"}, "--renew-seconds 300 must be under --lease-seconds 300"},
		{[]string{"--chunk-queries", "5", "--max-attempts", "0"}, "--max-attempts must be ≥ 1"},
		{[]string{"--chunk-queries", "5", "--name", "run\n#SBATCH --wrap=id"}, "--name \"run\\n#SBATCH --wrap=id\": want 1 to 63"},
		{[]string{"--chunk-queries", "5", "--name", "run.1"}, "--name \"run.1\""},
		{[]string{"--chunk-queries", "5"}, "--database"}, // the database does not exist
	} {
		out := filepath.Join(dir, "campaign")
		args := append(append([]string{"campaign", "plan", "--output", out}, base...), tc.args...)
		testCLI.ExpectRefused(t, tc.args, args, tc.want, out)
		if _, err := os.Stat(filepath.Join(dir, "nodb")); err == nil {
			t.Fatalf("%v: the missing database directory was created", tc.args)
		}
	}
	// Several mistakes are reported at once.
	_, _, err := run(t, "blastfleet", []string{"campaign", "plan", "--output", filepath.Join(dir, "c"), "--program", "nope", "--max-target-seqs", "0",
		"--queries", q, "--database", dir}...)
	if err == nil || !strings.Contains(err.Error(), "--program") || !strings.Contains(err.Error(), "--max-target-seqs") || !strings.Contains(err.Error(), "--chunk-letters") {
		t.Errorf("errors not reported together: %v", err)
	}
}

func TestCampaignPlanDir(t *testing.T) {
	f := newCampaignFixture(t)
	db := filepath.Join(f.dir, "db")
	f.shardTo(t, db)
	camp := filepath.Join(f.dir, "campaigns", "run1")
	// Each query alone: chunks are whole BLAST+ batches, and with BLAST+'s
	// own these few queries are one (TestCampaignPlanBatches).
	plan := func(extra ...string) (string, string, error) {
		args := append([]string{"campaign", "plan", "--queries", f.queries, "--database", db, "--program", "blastn",
			"--outfmt", "6 qseqid sseqid evalue bitscore", "--chunk-queries", "3", "--batching", "alone", "--output", camp}, extra...)
		return run(t, "blastfleet", args...)
	}

	stdout, stderr, err := plan()
	if err != nil {
		t.Fatalf("plan: %v\n%s", err, stderr)
	}
	for _, want := range []string{"campaign run1: plan written to " + filepath.Join(camp, "plan.json"),
		fmt.Sprintf("queries   %d (", f.count), "chunks    4 of up to 3 queries",
		"mpirun -np K blastfleet-engine --campaign " + camp + " [--partition-id ID]"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	p := readPlanAt(t, camp)
	manifestBytes, err := os.ReadFile(filepath.Join(db, manifest.FileName))
	if err != nil {
		t.Fatal(err)
	}
	wantQ := ledger.Queries{Location: f.queries, SHA256: clitest.SHA256(f.queryBytes), Size: int64(len(f.queryBytes)), Count: f.count, Letters: f.letters}
	if p.Queries != wantQ {
		t.Errorf("queries %+v, want %+v", p.Queries, wantQ)
	}
	var built manifest.Manifest
	if err := json.Unmarshal(manifestBytes, &built); err != nil || built.Build == "" {
		t.Fatalf("manifest.json names no build (%v)", err)
	}
	// The plan pins the build's own copy, which holds the same bytes.
	wantDB := ledger.Database{Location: db, Name: "testdb", Type: "nucl", ManifestSHA256: clitest.SHA256(manifestBytes), Manifest: built.Build + "/manifest.json"}
	if p.Database != wantDB {
		t.Errorf("database %+v, want %+v", p.Database, wantDB)
	}
	if p.Name != "run1" || p.Search.Program != "blastn" || p.Search.Format.UserArg() != "6 qseqid sseqid evalue bitscore" ||
		p.Search.MaxTargetSeqs != 500 || !p.Search.TopHits.Auto || p.Policy.MaxAttempts != ledger.DefaultMaxAttempts {
		t.Errorf("plan %+v", p)
	}
	if len(p.Chunks) != 4 || p.Chunks[3] != (ledger.Chunk{First: 9, End: 10, Letters: p.Chunks[3].Letters}) || p.Chunks[3].Letters == 0 {
		t.Errorf("chunks %+v", p.Chunks)
	}
	var sum int64
	for _, c := range p.Chunks {
		sum += c.Letters
	}
	if sum != f.letters {
		t.Errorf("chunk letters add up to %d, queries hold %d", sum, f.letters)
	}
	planBytes, _ := os.ReadFile(filepath.Join(camp, "plan.json"))

	t.Run("options BLAST refuses", func(t *testing.T) {
		// Well-formed values BLAST+ refuses for blastn fail the plan with
		// BLAST's reason, and nothing is written.
		other := filepath.Join(f.dir, "campaigns", "refused")
		_, stderr, err := run(t, "blastfleet", "campaign", "plan", "--queries", f.queries, "--database", db, "--program", "blastn",
			"--chunk-queries", "3", "--batching", "alone", "--output", other, "--blast-option=-word_size=3")
		if err == nil || !strings.Contains(err.Error()+stderr, "BLAST+ refuses the search") || !strings.Contains(err.Error()+stderr, `"word_size". Illegal value, expected >=4`) {
			t.Errorf("plan with -word_size 3: err %v\n%s", err, stderr)
		}
		if _, err := os.Stat(filepath.Join(other, "plan.json")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a refused search wrote a plan (stat: %v)", err)
		}
	})

	t.Run("idempotent", func(t *testing.T) {
		stdout, _, err := plan()
		if err != nil || !strings.Contains(stdout, "plan already written") || !strings.Contains(stdout, "nothing to do") {
			t.Errorf("second plan: %v\n%s", err, stdout)
		}
		// A relative path to the same file is the same plan.
		wd, _ := os.Getwd()
		rel, err := filepath.Rel(wd, f.queries)
		if err == nil {
			if _, _, err := run(t, "blastfleet", "campaign", "plan", "--queries", rel, "--database", db, "--program", "blastn",
				"--outfmt", "6 qseqid sseqid evalue bitscore", "--chunk-queries", "3", "--batching", "alone", "--output", camp); err != nil {
				t.Errorf("plan with a relative queries path: %v", err)
			}
		}
		if after, _ := os.ReadFile(filepath.Join(camp, "plan.json")); !bytes.Equal(after, planBytes) {
			t.Error("plan.json changed")
		}
	})

	t.Run("different plan refused", func(t *testing.T) {
		_, _, err := plan("--evalue", "1e-5")
		if err == nil || !strings.Contains(err.Error(), "already holds a different plan") || !strings.Contains(err.Error(), "search.evalue") {
			t.Errorf("err = %v", err)
		}
		_, _, err = run(t, "blastfleet", "campaign", "plan", "--queries", f.queries, "--database", db, "--program", "blastn",
			"--outfmt", "6 qseqid sseqid evalue bitscore", "--chunk-letters", "250", "--output", camp)
		if err == nil || !strings.Contains(err.Error(), "chunks") {
			t.Errorf("other chunks: err = %v", err)
		}
		if after, _ := os.ReadFile(filepath.Join(camp, "plan.json")); !bytes.Equal(after, planBytes) {
			t.Error("plan.json changed")
		}
	})

	t.Run("program against the wrong database type", func(t *testing.T) {
		out := filepath.Join(f.dir, "campaigns", "prot")
		pq := filepath.Join(f.dir, "p.fa")
		clitest.WriteFile(t, pq, []byte(">p1\nMKVLAAGIVG\n"))
		_, _, err := run(t, "blastfleet", "campaign", "plan", "--queries", pq, "--database", db, "--program", "blastp",
			"--chunk-queries", "1", "--output", out)
		if err == nil || !strings.Contains(err.Error(), "--program blastp searches a prot database") || !strings.Contains(err.Error(), "is nucl") {
			t.Errorf("err = %v", err)
		}
		if _, err := os.Stat(out); err == nil {
			t.Error("output created")
		}
	})

	t.Run("bad query", func(t *testing.T) {
		bad := filepath.Join(f.dir, "bad.fa")
		clitest.WriteFile(t, bad, []byte(">ok1\nACGT\n>broken second\nACGTJJ\n"))
		out := filepath.Join(f.dir, "campaigns", "bad")
		_, _, err := run(t, "blastfleet", "campaign", "plan", "--queries", bad, "--database", db, "--program", "blastn",
			"--chunk-queries", "1", "--output", out)
		if err == nil || !strings.Contains(err.Error(), `"broken"`) || !strings.Contains(err.Error(), "bad.fa") {
			t.Errorf("err = %v", err)
		}
		if _, err := os.Stat(out); err == nil {
			t.Error("output created")
		}
		_, _, err = run(t, "blastfleet", "campaign", "plan", "--queries", filepath.Join(f.dir, "absent.fa"), "--database", db, "--program", "blastn",
			"--chunk-queries", "1", "--output", out)
		if err == nil || !strings.Contains(err.Error(), "absent.fa") {
			t.Errorf("missing queries: err = %v", err)
		}
	})

	t.Run("gzip queries by letters", func(t *testing.T) {
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write(f.queryBytes)
		zw.Close()
		qgz := filepath.Join(f.dir, "q.fa.gz")
		clitest.WriteFile(t, qgz, gz.Bytes())
		out := filepath.Join(f.dir, "campaigns", "gz")
		stdout, _, err := run(t, "blastfleet", "campaign", "plan", "--queries", qgz, "--database", db, "--program", "tblastx",
			"--chunk-letters", "400", "--batching", "alone", "--name", "zipped", "--output", out)
		if err != nil {
			t.Fatal(err)
		}
		p := readPlanAt(t, out)
		if p.Name != "zipped" || p.Queries.SHA256 != clitest.SHA256(gz.Bytes()) || p.Queries.Size != int64(gz.Len()) || p.Queries.Count != f.count || p.Queries.Letters != f.letters {
			t.Errorf("plan %+v", p.Queries)
		}
		if len(p.Chunks) < 2 || !strings.Contains(stdout, "of about 400 letters") {
			t.Errorf("chunks %+v\n%s", p.Chunks, stdout)
		}
	})

	t.Run("status of a fresh plan", func(t *testing.T) {
		stdout, _, err := run(t, "blastfleet", "campaign", "status", camp, "-o", "json")
		if err != nil {
			t.Fatal(err)
		}
		var s ledger.Status
		if err := json.Unmarshal([]byte(stdout), &s); err != nil {
			t.Fatalf("%v\n%s", err, stdout)
		}
		if s.Name != "run1" || s.Chunks != 4 || s.Committed != 0 || s.Pending != 4 || s.Queries != f.count || s.Complete || len(s.Missing) != 4 {
			t.Errorf("status %+v", s)
		}
		stdout, _, err = run(t, "blastfleet", "campaign", "status", camp)
		if err != nil || !strings.Contains(stdout, "0 committed, 0 leased, 0 failed, 4 pending") ||
			!strings.Contains(stdout, "missing   [0,3) [3,6) [6,9) [9,10) (4 ranges, 10 queries)") {
			t.Errorf("table: %v\n%s", err, stdout)
		}
	})

	t.Run("results refused while incomplete", func(t *testing.T) {
		outDir := t.TempDir()
		out := filepath.Join(outDir, "hits.tsv")
		stdout, _, err := run(t, "blastfleet", "campaign", "results", camp, "--output-file", out)
		if err == nil || !errors.Is(err, ledger.ErrIncomplete) || !strings.Contains(err.Error(), "[0,3) [3,6) [6,9) [9,10)") {
			t.Errorf("err = %v", err)
		}
		if stdout != "" {
			t.Errorf("stdout %q", stdout)
		}
		if ents, _ := os.ReadDir(outDir); len(ents) != 0 {
			t.Errorf("files left: %v", ents)
		}
	})
}

// TestCampaignPlanS3 plans with queries, database and campaign all in a
// real MinIO.
func TestCampaignPlanS3(t *testing.T) {
	f := newCampaignFixture(t)
	testenv.RequireTools(t, "makeblastdb")
	m := testenv.StartMinIO(t)
	m.Setenv(t)
	m.MakeBucket(t, "work")
	ctx := context.Background()
	f.shardTo(t, "s3://work/dbs/testdb")
	qst, err := objstore.Open(ctx, "s3://work/in")
	if err != nil {
		t.Fatal(err)
	}
	if err := qst.Put(ctx, "q.fa", bytes.NewReader(f.queryBytes), int64(len(f.queryBytes))); err != nil {
		t.Fatal(err)
	}
	args := []string{"campaign", "plan", "--queries", "s3://work/in/q.fa", "--database", "s3://work/dbs/testdb/",
		"--program", "blastn", "--chunk-letters", "600", "--blast-option=-word_size=11", "--output", "s3://work/campaigns/run1/"}
	stdout, stderr, err := run(t, "blastfleet", args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "plan written to s3://work/campaigns/run1/plan.json") ||
		!strings.Contains(stdout, "blastfleet-engine --campaign s3://work/campaigns/run1 [--partition-id ID]") {
		t.Errorf("summary:\n%s", stdout)
	}
	p := readPlanAt(t, "s3://work/campaigns/run1")
	if p.Queries.Location != "s3://work/in/q.fa" || p.Queries.SHA256 != clitest.SHA256(f.queryBytes) || p.Database.Location != "s3://work/dbs/testdb" ||
		p.Name != "run1" || len(p.Search.Options) != 1 || p.Search.Options[0] != (blast.Option{Name: "word_size", Value: "11"}) {
		t.Errorf("plan %+v", p)
	}
	if stdout, _, err := run(t, "blastfleet", args...); err != nil || !strings.Contains(stdout, "nothing to do") {
		t.Errorf("second plan: %v\n%s", err, stdout)
	}
	stdout, _, err = run(t, "blastfleet", "campaign", "status", "s3://work/campaigns/run1", "-o", "json")
	var s ledger.Status
	if err != nil || json.Unmarshal([]byte(stdout), &s) != nil || s.Complete || s.Chunks != len(p.Chunks) || s.Queries != f.count {
		t.Errorf("status: %v %+v\n%s", err, s, stdout)
	}
}

// fakeCampaign writes a plan of 7 queries in 3 chunks to a directory
// store, without queries or a database: the ledger does not read them.
func fakeCampaign(t *testing.T) (string, objstore.Store) {
	t.Helper()
	loc := filepath.Join(t.TempDir(), "campaign")
	st, err := objstore.Open(context.Background(), loc)
	if err != nil {
		t.Fatal(err)
	}
	p := &ledger.Plan{Name: "fake",
		Queries:  ledger.Queries{Location: "/nowhere/q.fa", SHA256: strings.Repeat("a", 64), Size: 100, Count: 7, Letters: 700},
		Database: ledger.Database{Location: "/nowhere/db", Name: "db", Type: "nucl", ManifestSHA256: strings.Repeat("b", 64)},
		Search:   search.MustParse(search.Request{Program: "blastn", Outfmt: "6", MaxTargetSeqs: 500, TopHits: "auto"}),
		Chunks:   []ledger.Chunk{{First: 0, End: 3, Letters: 300}, {First: 3, End: 5, Letters: 200}, {First: 5, End: 7, Letters: 200}},
	}
	if err := ledger.WritePlan(context.Background(), st, p); err != nil {
		t.Fatal(err)
	}
	return loc, st
}

// commitAll drives the ledger as a partition would, committing each chunk
// with "results of [first,end)\n"; it returns the expected concatenation.
func commitAll(t *testing.T, st objstore.Store) string {
	t.Helper()
	ctx := context.Background()
	l, err := ledger.Open(ctx, st, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for {
		ls, err := l.Acquire(ctx, "test-partition")
		if errors.Is(err, ledger.ErrNoChunk) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data := fmt.Sprintf("results of %s\n", ls.Range)
		want.WriteString(data)
		if err := ls.Commit(ctx, strings.NewReader(data), int64(len(data))); err != nil {
			t.Fatal(err)
		}
	}
	return want.String()
}

func TestCampaignResults(t *testing.T) {
	loc, st := fakeCampaign(t)
	outDir := t.TempDir()
	out := filepath.Join(outDir, "hits.tsv")

	_, _, err := run(t, "blastfleet", "campaign", "results", loc, "--output-file", out)
	if err == nil || !strings.Contains(err.Error(), "missing query ranges [0,3) [3,5) [5,7) (3 ranges, 7 queries)") {
		t.Errorf("incomplete: err = %v", err)
	}
	if ents, _ := os.ReadDir(outDir); len(ents) != 0 {
		t.Errorf("files left after a refusal: %v", ents)
	}

	want := commitAll(t, st)
	if want != "results of [0,3)\nresults of [3,5)\nresults of [5,7)\n" {
		t.Fatalf("committed %q", want)
	}

	// Complete but not assembled: no record of the whole to check the
	// results against, and the command says so rather than skip the check.
	_, _, err = run(t, "blastfleet", "campaign", "results", loc, "--output-file", out)
	if err == nil || !strings.Contains(err.Error(), "holds no record of the whole result's SHA-256") {
		t.Errorf("unassembled: err = %v", err)
	}
	if ents, _ := os.ReadDir(outDir); len(ents) != 0 {
		t.Errorf("files left after a refusal: %v", ents)
	}
	l, err := ledger.Open(context.Background(), st, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Assemble(context.Background()); err != nil {
		t.Fatal(err)
	}

	stdout, stderr, err := run(t, "blastfleet", "campaign", "results", loc, "--output-file", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if got, _ := os.ReadFile(out); string(got) != want {
		t.Errorf("results file %q, want %q", got, want)
	}
	if stdout != "" || !strings.Contains(stderr, "wrote 7 queries' results") {
		t.Errorf("stdout %q stderr %q", stdout, stderr)
	}
	if ents, _ := os.ReadDir(outDir); len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}

	// To standard output, and the assembled result is pointed to.
	stdout, stderr, err = run(t, "blastfleet", "campaign", "results", loc)
	if err != nil || stdout != want {
		t.Errorf("stdout %q, %v", stdout, err)
	}
	if !strings.Contains(stderr, "assembled result is also at "+st.URL(ledger.ResultKey)) {
		t.Errorf("stderr %q", stderr)
	}
	// On a terminal, a bar of the bytes downloaded.
	out3 := filepath.Join(t.TempDir(), "tty.tsv")
	if _, stderr, err = testCLI.RunOnTerminal(t, "blastfleet", "campaign", "results", loc, "--output-file", out3); err != nil ||
		!strings.Contains(stderr, "downloading the results") || !strings.Contains(stderr, "\r") || !strings.Contains(stderr, "100%") {
		t.Errorf("results on a terminal: %v, stderr %q", err, stderr)
	}
	if got, _ := os.ReadFile(out3); string(got) != want {
		t.Errorf("results on a terminal wrote %q", got)
	}

	stdout, _, err = run(t, "blastfleet", "campaign", "status", loc)
	if err != nil || !strings.Contains(stdout, ": complete") || !strings.Contains(stdout, "3 committed") ||
		!strings.Contains(stdout, "7 of 7 done (100.0%)") || strings.Contains(stdout, "missing") {
		t.Errorf("status: %v\n%s", err, stdout)
	}

	// A result whose bytes no longer match its commit: nothing is
	// written, and the finished campaign is left as it is (a reader voids
	// nothing: that would remove a part of a finished campaign).
	results, err := filepath.Glob(filepath.Join(loc, "chunks", "000000003-000000005", "result-*"))
	if err != nil || len(results) != 1 {
		t.Fatalf("results %v %v", results, err)
	}
	clitest.WriteFile(t, results[0], []byte(strings.ToUpper("results of [3,5)\n")))
	out2 := filepath.Join(outDir, "again.tsv")
	_, _, err = run(t, "blastfleet", "campaign", "results", loc, "--output-file", out2)
	if err == nil || !strings.Contains(err.Error(), "[3,5)") || !strings.Contains(err.Error(), "readers change nothing") {
		t.Errorf("corrupt result: err = %v", err)
	}
	if ents, _ := os.ReadDir(outDir); len(ents) != 1 {
		t.Errorf("files left after a bad result: %v", ents)
	}
	stdout, _, _ = run(t, "blastfleet", "campaign", "status", loc, "-o", "json")
	var s ledger.Status
	if json.Unmarshal([]byte(stdout), &s) != nil || !s.Complete || len(s.Missing) != 0 {
		t.Errorf("status after a bad result was read: %s", stdout)
	}
}

func TestCampaignStatusWatch(t *testing.T) {
	loc, st := fakeCampaign(t)
	old := cli.WatchInterval
	cli.WatchInterval = 20 * time.Millisecond
	t.Cleanup(func() { cli.WatchInterval = old })

	type result struct {
		stdout string
		err    error
	}
	done := make(chan result, 1)
	go func() {
		stdout, _, err := run(t, "blastfleet", "campaign", "status", loc, "--watch")
		done <- result{stdout, err}
	}()
	time.Sleep(100 * time.Millisecond)
	commitAll(t, st)
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatal(r.err)
		}
		if !strings.Contains(r.stdout, ": in progress") || !strings.Contains(r.stdout, ": complete") {
			t.Errorf("watch output:\n%s", r.stdout)
		}
		// Unchanged refreshes are not repeated.
		if n := strings.Count(r.stdout, "0 committed, 0 leased"); n != 1 {
			t.Errorf("the first status printed %d times:\n%s", n, r.stdout)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("status --watch did not return after the campaign completed")
	}

	// A missing campaign is an error, and no directory is created for it.
	missing := filepath.Join(t.TempDir(), "nope")
	if _, _, err := run(t, "blastfleet", "campaign", "status", missing); err == nil {
		t.Error("status of a missing campaign succeeded")
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("status created the missing campaign's directory")
	}
	if _, _, err := run(t, "blastfleet", "campaign", "status", loc, "-o", "yaml"); err == nil || !strings.Contains(err.Error(), "table or json") {
		t.Errorf("-o yaml: %v", err)
	}
}

func TestProgressBar(t *testing.T) {
	for _, tc := range []struct {
		done, total int
		want        string
	}{
		{0, 10, "[..........] 0/10 queries (0.0%)"},
		{5, 10, "[#####.....] 5/10 queries (50.0%)"},
		{10, 10, "[##########] 10/10 queries (100.0%)"},
		{0, 0, "[##########] 0/0 queries (100.0%)"},
	} {
		if got := cli.ProgressBar(tc.done, tc.total, 10); got != tc.want {
			t.Errorf("cli.ProgressBar(%d, %d) = %q, want %q", tc.done, tc.total, got, tc.want)
		}
	}
	if got := failureLine(ledger.FailureReason{Message: "blastn failed", ExitCode: 99, StderrTail: "line one\nBLAST query/options error: boom  \n"}); got != "blastn failed (exit code 99): BLAST query/options error: boom" {
		t.Errorf("failureLine = %q", got)
	}
	if got := cli.Truncate(strings.Repeat("x", 200), 10); got != "xxxxxxxxx…" {
		t.Errorf("truncate = %q", got)
	}
}

// TestCampaignFailedQueries: a campaign whose every query failed is
// complete; status lists the failures, results are empty.
func TestCampaignFailedQueries(t *testing.T) {
	ctx := context.Background()
	loc := filepath.Join(t.TempDir(), "campaign")
	st, err := objstore.Open(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	p := &ledger.Plan{Name: "poison",
		Queries:  ledger.Queries{Location: "/nowhere/q.fa", SHA256: strings.Repeat("a", 64), Size: 10, Count: 2, Letters: 20},
		Database: ledger.Database{Location: "/nowhere/db", Name: "db", Type: "nucl", ManifestSHA256: strings.Repeat("b", 64)},
		Search:   search.MustParse(search.Request{Program: "blastn", Outfmt: "6", MaxTargetSeqs: 500, TopHits: "auto"}),
		Chunks:   []ledger.Chunk{{First: 0, End: 2, Letters: 20}},
		Policy:   ledger.Policy{MaxAttempts: 1},
	}
	if err := ledger.WritePlan(ctx, st, p); err != nil {
		t.Fatal(err)
	}
	l, err := ledger.Open(ctx, st, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for {
		ls, err := l.Acquire(ctx, "test")
		if errors.Is(err, ledger.ErrNoChunk) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := ls.Fail(ctx, ledger.FailureReason{Message: "blastn failed", ExitCode: 99, StderrTail: "injected\nfailure for " + ls.Range.String()}); err != nil {
			t.Fatal(err)
		}
	}
	stdout, _, err := run(t, "blastfleet", "campaign", "status", loc)
	if err != nil || !strings.Contains(stdout, ": complete") || !strings.Contains(stdout, "0 of 2 done (0.0%), 2 failed") ||
		!strings.Contains(stdout, "  #0: blastn failed (exit code 99): failure for [0,1)") || !strings.Contains(stdout, "  #1: ") {
		t.Errorf("status: %v\n%s", err, stdout)
	}
	if _, err := l.Assemble(ctx); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "hits.tsv")
	_, stderr, err := run(t, "blastfleet", "campaign", "results", loc, "--output-file", out)
	if err != nil || !strings.Contains(stderr, "2 queries failed and have no results") {
		t.Errorf("results: %v\n%s", err, stderr)
	}
	if data, err := os.ReadFile(out); err != nil || len(data) != 0 {
		t.Errorf("results file %q, %v", data, err)
	}
}

// TestCampaignPlanBatches: by default chunks are runs of whole BLAST+
// batches, which the plan records, however small the chunk size asked.
func TestCampaignPlanBatches(t *testing.T) {
	f := newCampaignFixture(t)
	db := filepath.Join(f.dir, "db")
	f.shardTo(t, db)
	camp := filepath.Join(f.dir, "campaigns", "batches")
	// megablast's batches are 2,000,000 letters; a small chunk size still
	// gives whole batches.
	stdout, stderr, err := run(t, "blastfleet", "campaign", "plan", "--queries", f.queries, "--database", db, "--program", "blastn",
		"--chunk-queries", "1", "--output", camp)
	if err != nil {
		t.Fatalf("plan: %v\n%s", err, stderr)
	}
	p := readPlanAt(t, camp)
	want := fmt.Sprintf("batches   %d BLAST+ batches of 2000000 letters (BATCH_SIZE=2000000)", len(p.BatchStarts)+1)
	if !strings.Contains(stdout, want) {
		t.Errorf("summary lacks %q:\n%s", want, stdout)
	}
	if f.letters < 2000000 && (len(p.Chunks) != 1 || len(p.BatchStarts) != 0) {
		t.Errorf("%d letters are one megablast batch: chunks %+v, batch starts %v", f.letters, p.Chunks, p.BatchStarts)
	}
}
