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
	"github.com/blastfleet/blastfleet/internal/faultproxy"
	"github.com/blastfleet/blastfleet/internal/ledger"
	"github.com/blastfleet/blastfleet/internal/objstore"
	"github.com/blastfleet/blastfleet/internal/testenv"
)

// TestStoreOutageIsNoFailure: every try of a chunk's upload completion
// meets a reset connection (the store out of reach for longer than the
// client retries). The chunk is redone, but no failure goes on record:
// an outage is the store's trouble, and recorded as failures, repeated
// outages would split the chunk down to failed queries.
func TestStoreOutageIsNoFailure(t *testing.T) {
	m := testenv.StartMinIO(t)
	m.MakeBucket(t, "outage")
	completing := func(r *http.Request) bool { return r.Method == http.MethodPost && r.URL.Query().Has("uploadId") }
	// minio-go tries a request 10 times: the first completion fails for good.
	p, err := faultproxy.Start(m.Endpoint, 1, faultproxy.Faults{Reset: 1, Max: 10, Only: completing})
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
	if p.Counts().Resets != 10 {
		t.Fatalf("proxy %v: want 10 completions reset", p.Counts())
	}
	if !s.Complete || s.Failed != 0 || s.QueriesFailed != 0 || s.FailedAttempts.Total()-s.FailedAttempts.Abandoned != 0 {
		t.Errorf("status %+v: want every chunk committed and no failure on record", s)
	}
	if s.Attempts != s.Chunks+1 || s.FailedAttempts.Abandoned != 1 {
		t.Errorf("status %+v: want the broken chunk redone once, its first attempt abandoned", s)
	}
}
