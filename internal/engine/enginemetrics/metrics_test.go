package enginemetrics

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestRanksAndRecorders(t *testing.T) {
	s := NewSet(Labels{Namespace: "ns", Campaign: "c", Partition: "c-p0-r0", Site: "hpc-a"})
	m, w := s.Rank(0, "master"), s.Rank(1, "worker")
	w.Task("blastp", 1.5)
	w.Task("blastp", 0.5)
	w.Phase("compute", 2)
	w.Phase("sync", 0) // nothing: no zero series
	w.Cache(3, 1, 4096)
	w.QueueWait(0.01)
	w.Written("worker-merge", 100)
	w.Store("s3://a/db", 2048, 1, 1, 1500*time.Millisecond)
	w.Store("s3://a/db", 1024, 0, 0, 500*time.Millisecond)
	m.Store("s3://a/db", 1, 1, 1, time.Second) // a master reads no shards
	m.Queries(5, 1200)
	m.Chunk(12)
	m.Ledger("commit", 0.02, nil)
	m.Ledger("acquire", 0.01, errors.New("503"))

	w.Queries(3, 10) // a worker exports no query count
	m.Task("blastp", 1)

	var nilRank *Rank // metrics off: every recorder is a no-op
	nilRank.Task("blastp", 1)
	nilRank.Ledger("commit", 1, nil)

	if got := testutil.ToFloat64(w.tasks.WithLabelValues("blastp")); got != 2 {
		t.Errorf("tasks %g, want 2", got)
	}
	if got := testutil.ToFloat64(w.fetchBytes); got != 4096 {
		t.Errorf("fetch bytes %g, want 4096", got)
	}
	if got := testutil.ToFloat64(w.storeBytes.WithLabelValues("s3://a/db")); got != 3072 {
		t.Errorf("store bytes %g, want 3072", got)
	}
	if got := testutil.ToFloat64(w.storeBusy.WithLabelValues("s3://a/db")); got != 2 {
		t.Errorf("store busy seconds %g, want 2", got)
	}
	if got := testutil.ToFloat64(w.storeSkips.WithLabelValues("s3://a/db")); got != 1 {
		t.Errorf("store skips %g, want 1", got)
	}
	if got := testutil.ToFloat64(m.ledgerErrors.WithLabelValues("acquire")); got != 1 {
		t.Errorf("ledger errors %g, want 1", got)
	}
	problems, err := testutil.GatherAndLint(s.Registry())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
	exp := `
# HELP blastfleet_engine_queries_total Queries whose merged output the master handed to the writers.
# TYPE blastfleet_engine_queries_total counter
blastfleet_engine_queries_total{campaign="c",namespace="ns",partition="c-p0-r0",rank="0",role="master",site="hpc-a"} 5
`
	if err := testutil.GatherAndCompare(s.Registry(), strings.NewReader(exp), "blastfleet_engine_queries_total"); err != nil {
		t.Error(err)
	}
}

func TestServe(t *testing.T) {
	s := NewSet(Labels{Campaign: "c"})
	s.Rank(2, "worker").Task("blastn", 0.1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr, err := s.Serve(ctx, Addr("127.0.0.1", 0, 0), logr.Discard())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Serve(ctx, addr, logr.Discard()); err == nil {
		t.Error("a second listener on the same port: no error")
	}
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `blastfleet_engine_tasks_total{campaign="c",namespace="",partition="",program="blastn",rank="2",role="worker",site=""} 1`) {
		t.Errorf("/metrics lacks the task counter:\n%s", body)
	}
}
