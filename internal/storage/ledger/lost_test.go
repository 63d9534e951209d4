package ledger

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/faultproxy"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// faultyMinIO is a MinIO reached through a fault proxy; fresh returns an
// empty campaign prefix each time.
func faultyMinIO(t *testing.T, f faultproxy.Faults) (fresh func() objstore.Store, p *faultproxy.Proxy) {
	t.Helper()
	m := testenv.StartMinIO(t)
	m.MakeBucket(t, "ledger")
	p, err := faultproxy.Start(m.Endpoint, 3, f)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	cfg := objstore.S3Config{Endpoint: p.Host, PathStyle: true, Region: "us-east-1", AccessKey: m.AccessKey, SecretKey: m.SecretKey}
	n := 0
	return func() objstore.Store {
		n++
		st, err := objstore.NewS3(cfg, "ledger", fmt.Sprintf("campaigns/c%d", n))
		if err != nil {
			t.Fatal(err)
		}
		return st
	}, p
}

func conditional(r *http.Request) bool {
	return r.Method == http.MethodPut && (r.Header.Get("If-None-Match") != "" || r.Header.Get("If-Match") != "")
}

// TestCheckStoreLostResponse: the store check's own writes, their answers
// lost and retried, fail their conditions on themselves; the check must
// see its own bytes there, not refuse the store or fail a partition.
func TestCheckStoreLostResponse(t *testing.T) {
	for _, c := range []struct {
		name string
		only func(*http.Request) bool
	}{
		{"create", func(r *http.Request) bool { return conditional(r) && r.Header.Get("If-None-Match") != "" }},
		{"replace", func(r *http.Request) bool {
			im := r.Header.Get("If-Match")
			return conditional(r) && im != "" && !strings.Contains(im, "0123456789abcdef") // not the stale probe
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			fresh, p := faultyMinIO(t, faultproxy.Faults{LostResponse: 1, Max: 1, Only: c.only})
			if err := CheckStore(context.Background(), fresh()); err != nil {
				t.Fatalf("CheckStore with one lost answer: %v", err)
			}
			if n := p.Counts(); n.LostConditional != 1 {
				t.Fatalf("proxy counts %v: want one lost answer to a conditional write", n)
			}
		})
	}
}

// TestLedgerThroughFaults drains a campaign through lost answers, 5xx
// bursts and resets: every chunk is committed by its first attempt, none
// recorded failed, so every conditional write whose answer was lost was
// recognised as the ledger's own.
func TestLedgerThroughFaults(t *testing.T) {
	fresh, p := faultyMinIO(t, faultproxy.Faults{LostResponse: 0.2, Burst: 0.03, BurstLen: 2, Reset: 0.03})
	st := fresh()
	l := campaign(t, st, ChunkByQueries(12, 1), Options{})
	ctx := context.Background()
	for {
		ls, err := l.Acquire(ctx, "h")
		if errors.Is(err, ErrNoChunk) {
			break
		}
		if err != nil {
			t.Fatalf("Acquire: %v", err)
		}
		// As the engine does: the result uploaded, then committed.
		b := result(ls.Range)
		if err := st.Put(ctx, ls.ResultKey(), bytes.NewReader(b), int64(len(b))); err != nil {
			t.Fatalf("uploading %s: %v", ls.Range, err)
		}
		if err := ls.CommitUploaded(ctx); err != nil {
			t.Fatalf("committing %s: %v", ls.Range, err)
		}
	}
	s, err := l.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	n := p.Counts()
	t.Logf("status %+v; proxy: %v", s, n)
	if !s.Complete || s.Committed != 12 || s.Attempts != 12 || s.FailedAttempts.Total() != 0 {
		t.Errorf("want 12 chunks each committed by its one attempt, none failed: %+v", s)
	}
	if n.LostConditional == 0 || n.BurstAnswers == 0 || n.Resets == 0 {
		t.Errorf("proxy counts %v: want lost answers to conditional writes, bursts and resets", n)
	}
}
