package engine_test

import (
	"bytes"
	"context"
	"fmt"
	spec "github.com/blastfleet/blastfleet/internal/plan/search"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/engine"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/refsearch"
)

// planCampaign writes a plan for the fixture's queries in chunks of q
// queries into a directory campaign.
func planCampaign(t *testing.T, f *fixture, db string, s search, q, queries int) (string, objstore.Store) {
	t.Helper()
	return planCampaignPolicy(t, f, db, s, q, queries, ledger.Policy{MaxAttempts: 2, LeaseSeconds: 30, RenewSeconds: 5, SkewSeconds: 1})
}

// planCampaignPolicy is planCampaign with the given retry policy.
func planCampaignPolicy(t *testing.T, f *fixture, db string, s search, q, queries int, pol ledger.Policy) (string, objstore.Store) {
	t.Helper()
	loc := filepath.Join(t.TempDir(), "campaign")
	st, err := objstore.Open(context.Background(), loc)
	if err != nil {
		t.Fatal(err)
	}
	plan := &ledger.Plan{SchemaVersion: ledger.SchemaVersion, Name: "test",
		Queries:  ledger.Queries{Location: f.queries, Count: queries},
		Database: ledger.Database{Location: db},
		Search:   spec.MustParse(spec.Request{Program: string(s.program), Outfmt: s.outfmt, MaxTargetSeqs: blast.DefaultMaxTargetSeqs}),
		Chunks:   ledger.ChunkByQueries(queries, q),
		Policy:   pol}
	if err := ledger.WritePlan(context.Background(), st, plan); err != nil {
		t.Fatal(err)
	}
	return loc, st
}

// partition runs one partition of a campaign in process.
func partition(t *testing.T, s search, loc string, st objstore.Store, id string) (*engine.Summary, error) {
	return partitionCtx(context.Background(), t, s, loc, st, id)
}

// partitionCtx is partition until ctx ends (a SIGTERM, in cmd/engine).
func partitionCtx(ctx context.Context, t *testing.T, s search, loc string, st objstore.Store, id string) (*engine.Summary, error) {
	l, err := ledger.Open(ctx, st, ledger.Options{})
	if err != nil {
		return nil, err
	}
	plan := l.Plan()
	cfg := s.config(t, plan.Database.Location, plan.Queries.Location, loc)
	cfg.Campaign = &engine.Campaign{Location: loc, Ledger: l, Holder: id}
	return engine.RunLocal(ctx, cfg, s.workers)
}

func TestCampaignPartitionsShareChunks(t *testing.T) {
	f := synthFixture(t, nuclFamilies())
	s := search{program: blast.Blastn, outfmt: "6 std", workers: 2, groupBytes: 1}
	want := s.reference(t, f, false)
	db := f.shards(t, 3)
	loc, st := planCampaign(t, f, db, s, 4, 30)

	var wg sync.WaitGroup
	sums := make([]*engine.Summary, 3)
	errs := make([]error, 3)
	for i := range sums {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			sums[i], errs[i] = partition(t, s, loc, st, fmt.Sprintf("p%d", i))
		}(i)
	}
	wg.Wait()
	committed := 0
	for i, err := range errs {
		if err != nil {
			t.Fatalf("partition %d: %v", i, err)
		}
		committed += sums[i].ChunksCommitted
	}
	if committed != 8 {
		t.Errorf("partitions committed %d chunks in all, want 8 (each exactly once)", committed)
	}
	var got bytes.Buffer
	if err := ledger.StreamResults(context.Background(), st, &got); err != nil {
		t.Fatal(err)
	}
	if d := refsearch.Diff(got.Bytes(), want); d != "" {
		t.Fatalf("campaign result differs from the unsharded search: %s", d)
	}
	// The partitions left the campaign's summary for pollers: complete,
	// as a listing of the chunks says.
	l, err := ledger.Open(context.Background(), st, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := l.ReadSummary(context.Background(), time.Minute)
	if err != nil || sum == nil {
		t.Fatalf("summary after the partitions ended: %+v, %v", sum, err)
	}
	if s := sum.Status; !s.Complete || s.Committed != 8 || s.QueriesDone != 30 || !strings.HasPrefix(sum.Writer, "p") {
		t.Errorf("summary %+v by %q, want complete with 8 chunks and 30 queries", s, sum.Writer)
	}
}

func TestCampaignPoisonQuery(t *testing.T) {
	f := synthFixture(t, nuclFamilies())
	s := search{program: blast.Blastn, outfmt: "6 std", workers: 2}
	want := s.reference(t, f, false)
	db := f.shards(t, 1)
	loc, st := planCampaign(t, f, db, s, 8, 30)
	t.Setenv(engine.FailQueriesEnv, "query0005")
	if _, err := partition(t, s, loc, st, "p0"); err != nil {
		t.Fatal(err)
	}
	status, err := ledger.ReadStatus(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if !status.Complete || status.QueriesFailed != 1 || len(status.FailedQueries) != 1 || status.FailedQueries[0].Query != 5 ||
		status.FailedQueries[0].ID != "query0005" {
		t.Fatalf("status %+v, want complete with query 5 (query0005) failed", status)
	}
	if r := status.FailedQueries[0].Reason; r.ExitCode != 99 || !strings.Contains(r.StderrTail, "query0005") {
		t.Errorf("failure reason %+v lacks the exit code or stderr tail", r)
	}
	var got bytes.Buffer
	if err := ledger.StreamResults(context.Background(), st, &got); err != nil {
		t.Fatal(err)
	}
	var expect bytes.Buffer
	for _, line := range strings.SplitAfter(string(want), "\n") {
		if !strings.HasPrefix(line, "query0005\t") {
			expect.WriteString(line)
		}
	}
	if d := refsearch.Diff(got.Bytes(), expect.Bytes()); d != "" {
		t.Fatalf("every other query must be done: %s", d)
	}
}
