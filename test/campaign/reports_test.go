package campaign_e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/bio/blastvol"
	"github.com/blastfleet/blastfleet/internal/engine"
	"github.com/blastfleet/blastfleet/internal/engine/regen"
	"github.com/blastfleet/blastfleet/internal/plan/planning"
	"github.com/blastfleet/blastfleet/internal/plan/search"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/refsearch"
)

// datedReference is the fixture's unsharded database under the sharded
// one's name and date (the newest of its shards'), as a regenerated
// report names it.
func datedReference(t *testing.T, e *env) string {
	t.Helper()
	requireTools(t, "blastdbcmd", "blastdb_aliastool")
	ctx := context.Background()
	ref, err := refsearch.MakeNamedDB(ctx, e.f.fasta, "nucl", t.TempDir(), "families")
	if err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Load(ctx, mustOpen(t, e.db))
	if err != nil {
		t.Fatal(err)
	}
	date := regen.DatabaseDate(m.Shards)
	if _, err := time.Parse(blastvol.DateLayout, date); err != nil {
		t.Fatalf("the database's date %q: %v", date, err)
	}
	if err := blastvol.SetDate(ref+".nin", date); err != nil {
		t.Fatal(err)
	}
	return ref
}

// reportPlan plans the fixture's search with outfmt and batching as
// blastfleet campaign plan does, in chunks of about 7 queries of whole
// BLAST+ batches.
func reportPlan(t *testing.T, e *env, loc, outfmt, transfer, batching string) *ledger.Plan {
	t.Helper()
	p, _, err := planning.Make(context.Background(), planning.Request{Name: filepath.Base(loc), Queries: e.qloc, Database: e.db,
		Search: search.MustParse(search.Request{Program: "blastn", Outfmt: outfmt, MaxTargetSeqs: 500, TopHits: "auto",
			Transfer: transfer, Batching: batching}),
		ChunkQueries: 7, Policy: testPolicy})
	if err != nil {
		t.Fatal(err)
	}
	p.SchemaVersion = ledger.SchemaVersion
	return p
}

// runTwo runs partitions A (3 ranks) and B (2) to the campaign's end.
func runTwo(t *testing.T, st objstore.Store, loc string, env []string) *ledger.Status {
	t.Helper()
	a := startPartition(t, loc, "A", 3, env)
	b := startPartition(t, loc, "B", 2, env)
	a.mustSucceed(t)
	b.mustSucceed(t)
	s, err := ledger.ReadStatus(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Complete || s.QueriesFailed != 0 || s.Committed != s.Chunks {
		t.Fatalf("status %+v: want complete, nothing failed", s)
	}
	return s
}

// TestCampaignReport: a campaign whose output is a report (-outfmt 5, XML)
// run by two partitions, in chunks, with the first regeneration of every
// query failing once, gives BLAST+'s XML of the whole search: one
// document, the queries numbered across it, BLAST+'s own for the query
// file in its batches on the unsharded database. A failed regeneration
// fails its chunk's attempt, which is retried like any.
func TestCampaignReport(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	want, err := refsearch.ReportBatches(ctx, "blastn", datedReference(t, e), e.f.queries, "5", "-max_target_seqs", "500")
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(want, []byte("<Iteration>")); n != e.f.nQueries {
		t.Fatalf("the reference has %d iterations for %d queries", n, e.f.nQueries)
	}
	loc := "s3://campaigns/" + campaignName(t)
	st := writePlan(t, loc, reportPlan(t, e, loc, "5", "", ""))
	s := runTwo(t, st, loc, []string{engine.FailRegenOnceEnv + "=" + t.TempDir()})
	var got bytes.Buffer
	if err := ledger.StreamResults(ctx, st, &got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("the campaign's XML differs from BLAST+'s: %s", refsearch.Diff(got.Bytes(), want))
	}
	failedAttempts := 0
	for _, c := range readChunks(t, st) {
		for _, at := range c.attempts {
			if at.Failure != nil {
				if !strings.Contains(at.Failure.Message, "regenerat") {
					t.Errorf("chunk %s: attempt %d failed for another reason: %s", c.r, at.Number, at.Failure.Message)
				}
				failedAttempts++
			}
		}
	}
	if failedAttempts == 0 {
		t.Fatal("no regeneration failed: the fault was not injected, the test proves nothing about retries")
	}
	t.Logf("%d chunks, %d attempts failed in regeneration and were retried; %d bytes of XML, identical", s.Chunks, failedAttempts, got.Len())
}

// TestCampaignMetadataTransfer: partitions that transfer metadata commit
// a few bytes per query; blastfleet campaign results regenerates from
// them, with BLAST+ and the database's shards, BLAST+'s own output for
// the query file in its batches: a pairwise report (-outfmt 0) and
// tabular lines (6), byte for byte; and, with --batching alone, each
// query's pairwise report searched alone.
func TestCampaignMetadataTransfer(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ref := datedReference(t, e)
	for _, c := range []struct {
		outfmt   string
		code     int
		batching string
	}{{"0", 0, ""}, {"6 std", 6, ""}, {"0", 0, "alone"}} {
		t.Run("outfmt="+c.outfmt+"/batching="+c.batching, func(t *testing.T) {
			var want []byte
			var err error
			switch {
			case c.batching == "alone":
				want, err = refsearch.ReportAlone(ctx, "blastn", ref, e.f.queries, c.code, c.outfmt, "-max_target_seqs", "500")
			case c.code == 6:
				want, err = refsearch.SearchBatches(ctx, "blastn", ref, e.f.queries, c.outfmt, "-max_target_seqs", "500")
			default:
				want, err = refsearch.ReportBatches(ctx, "blastn", ref, e.f.queries, c.outfmt, "-max_target_seqs", "500")
			}
			if err != nil {
				t.Fatal(err)
			}
			loc := "s3://campaigns/" + campaignName(t)
			st := writePlan(t, loc, reportPlan(t, e, loc, c.outfmt, search.TransferMetadata, c.batching))
			runTwo(t, st, loc, nil)
			var meta bytes.Buffer
			if err := ledger.StreamResults(ctx, st, &meta); err != nil {
				t.Fatal(err)
			}
			if n := bytes.Count(meta.Bytes(), []byte("\n")); n != e.f.nQueries {
				t.Fatalf("%d metadata lines for %d queries", n, e.f.nQueries)
			}
			out := filepath.Join(t.TempDir(), "out")
			r := mustRunCLI(t, "campaign", "results", loc, "-o", out)
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("regenerated output differs from BLAST+'s: %s\n%s", refsearch.Diff(got, want), r)
			}
			raw := filepath.Join(t.TempDir(), "meta")
			mustRunCLI(t, "campaign", "results", loc, "--metadata", "-o", raw)
			if b, _ := os.ReadFile(raw); !bytes.Equal(b, meta.Bytes()) {
				t.Fatalf("--metadata wrote %d bytes, the committed metadata is %d", len(b), meta.Len())
			}
			t.Logf("outfmt %s: committed %d bytes of metadata for %d bytes of output (%.0fx less)", c.outfmt, meta.Len(), len(want),
				float64(len(want))/float64(meta.Len()))
		})
	}
}

// mustRunCLI runs the blastfleet CLI with the test's environment (its
// MinIO's variables) and returns what it printed on standard error.
func mustRunCLI(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bins(t).cli, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("blastfleet %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stderr.String()
}
