package campaign_e2e

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/blastvol"
	"github.com/blastfleet/blastfleet/internal/engine"
	"github.com/blastfleet/blastfleet/internal/ledger"
	"github.com/blastfleet/blastfleet/internal/manifest"
	"github.com/blastfleet/blastfleet/internal/refsearch"
	"github.com/blastfleet/blastfleet/internal/search"
)

// TestCampaignReport: a campaign whose output is a report (-outfmt 5, XML)
// run by two partitions, in chunks, with the first regeneration of every
// query failing once, gives BLAST+'s XML of the whole search: one
// document, the queries numbered across it, each query's part BLAST's
// own on the unsharded database. A failed regeneration fails its chunk's
// attempt, which is retried like any.
func TestCampaignReport(t *testing.T) {
	e := newEnv(t)
	f := e.f
	requireTools(t, "blastdbcmd", "blastdb_aliastool")
	ctx := context.Background()
	ref, err := refsearch.MakeNamedDB(ctx, f.fasta, "nucl", t.TempDir(), "families")
	if err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Load(ctx, mustOpen(t, e.db))
	if err != nil {
		t.Fatal(err)
	}
	newest := m.Shards[0].Date
	for _, s := range m.Shards {
		a, _ := time.Parse(blastvol.DateLayout, s.Date)
		if b, _ := time.Parse(blastvol.DateLayout, newest); a.After(b) {
			newest = s.Date
		}
	}
	if err := blastvol.SetDate(ref+".nin", newest); err != nil {
		t.Fatal(err)
	}
	want, err := refsearch.ReportAlone(ctx, "blastn", ref, f.queries, 5, "5", "-max_target_seqs", "500")
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(want, []byte("<Iteration>")); n != f.nQueries {
		t.Fatalf("the reference has %d iterations for %d queries", n, f.nQueries)
	}
	loc := "s3://campaigns/" + campaignName(t)
	p := &ledger.Plan{SchemaVersion: ledger.SchemaVersion, Name: filepath.Base(loc),
		Queries: ledger.Queries{Location: e.qloc, SHA256: sha256Hex(f.queryBytes), Size: int64(len(f.queryBytes)),
			Count: f.nQueries, Letters: f.letters},
		Database: ledger.Database{Location: e.db, Name: "families", Type: "nucl", ManifestSHA256: f.manifestSHA, Manifest: f.manifestKey},
		Search:   search.MustParse(search.Request{Program: "blastn", Outfmt: "5", MaxTargetSeqs: 500, TopHits: "auto"}),
		Chunks:   ledger.ChunkByQueries(f.nQueries, 7),
		Policy:   testPolicy}
	st := writePlan(t, loc, p)
	fault := []string{engine.FailRegenOnceEnv + "=" + t.TempDir()}
	a := startPartition(t, loc, "A", 3, fault)
	b := startPartition(t, loc, "B", 2, fault)
	a.mustSucceed(t)
	b.mustSucceed(t)
	s, err := ledger.ReadStatus(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Complete || s.QueriesFailed != 0 || s.Committed != s.Chunks {
		t.Fatalf("status %+v: want complete, nothing failed", s)
	}
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
