package engine_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/blastfleet/blastfleet/internal/engine"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/faultproxy"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// TestStoreOutageIsNoFailure: every try of a chunk's upload completion
// meets a reset connection (the store out of reach for longer than the
// client retries). The chunk is redone, but no failure goes on record:
// an outage is the store's trouble, and recorded as failures, repeated
// outages would split the chunk down to failed queries.
func TestStoreOutageIsNoFailure(t *testing.T) {
	completing := func(r *http.Request) bool { return r.Method == http.MethodPost && r.URL.Query().Has("uploadId") }
	// minio-go tries a request 10 times: the first completion fails for good.
	s, n := storeFaultCampaign(t, faultproxy.Faults{Reset: 1, Max: 10, Only: completing})
	if n.Resets != 10 {
		t.Fatalf("proxy %v: want 10 completions reset", n)
	}
	checkRedoneOnce(t, s)
}

// TestLostPartIsNoFailure: the store acknowledges a part of a chunk's
// result and loses it, so the upload's completion fails (InvalidPart).
// That is the store's trouble too: the chunk is redone without a
// failure on record (it was recorded failed, and with one attempt
// allowed its queries failed).
func TestLostPartIsNoFailure(t *testing.T) {
	parts := func(r *http.Request) bool { return r.URL.Query().Has("partNumber") }
	s, n := storeFaultCampaign(t, faultproxy.Faults{LostWrite: 1, Max: 1, Only: parts})
	if n.LostWrites != 1 {
		t.Fatalf("proxy %v: want one part lost", n)
	}
	checkRedoneOnce(t, s)
}

func checkRedoneOnce(t *testing.T, s *ledger.Status) {
	t.Helper()
	if !s.Complete || s.Failed != 0 || s.QueriesFailed != 0 || s.FailedAttempts.Total()-s.FailedAttempts.Abandoned != 0 {
		t.Errorf("status %+v: want every chunk committed and no failure on record", s)
	}
	if s.Attempts != s.Chunks+1 || s.FailedAttempts.Abandoned != 1 {
		t.Errorf("status %+v: want the broken chunk redone once, its first attempt abandoned", s)
	}
}

// storeFaultCampaign runs a simulated campaign of 8 queries in chunks of
// 4, one attempt allowed each, reaching MinIO through a proxy with f.
func storeFaultCampaign(t *testing.T, f faultproxy.Faults) (*ledger.Status, faultproxy.Counts) {
	t.Helper()
	m := testenv.StartMinIO(t)
	m.MakeBucket(t, "outage")
	p, err := faultproxy.Start(m.Endpoint, 1, f)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	m.Setenv(t)
	t.Setenv("AWS_ENDPOINT_URL", p.URL)

	model := simModel(t, 3)
	var q bytes.Buffer
	for i, query := range model.Queries() {
		fmt.Fprintf(&q, ">%s\n%s\n", query.ID, bytes.Repeat([]byte("A"), query.Len))
		if i == 7 {
			break
		}
	}
	qpath := filepath.Join(t.TempDir(), "q.fa")
	if err := os.WriteFile(qpath, q.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	loc := "s3://outage/campaign"
	st, err := objstore.Open(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	cfg := simConfig(t, model, loc)
	cfg.Sim.Generate = false
	plan := &ledger.Plan{SchemaVersion: ledger.SchemaVersion, Name: "outage",
		Queries: ledger.Queries{Location: qpath, Count: 8}, Database: ledger.Database{Location: "s3://simulated/db"},
		Search: cfg.Spec, Chunks: ledger.ChunkByQueries(8, 4),
		Policy: ledger.Policy{MaxAttempts: 1, LeaseSeconds: 30, RenewSeconds: 5, SkewSeconds: 1}}
	if err := ledger.WritePlan(ctx, st, plan); err != nil {
		t.Fatal(err)
	}
	l, err := ledger.Open(ctx, st, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Queries = qpath
	cfg.Campaign = &engine.Campaign{Location: loc, Ledger: l, Holder: "p"}
	if _, err := engine.RunLocal(ctx, cfg, 2); err != nil {
		t.Fatalf("partition: %v", err)
	}
	s, err := l.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("status %+v; proxy %v", s, p.Counts())
	return s, p.Counts()
}
