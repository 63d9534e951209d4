package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/engine"
	"github.com/blastfleet/blastfleet/internal/engine/enginemetrics"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/runrecord"
)

// A campaign run leaves its record beside the ledger, with every rank's
// timeline, and its ranks' /metrics count what the summary counts.
func TestCampaignRunRecordAndMetrics(t *testing.T) {
	f := synthFixture(t, nuclFamilies())
	s := search{program: blast.Blastn, outfmt: "6 std", workers: 2, groupBytes: 1}
	db := f.shards(t, 2)
	loc, st := planCampaign(t, f, db, s, 5, 30)
	l, err := ledger.Open(context.Background(), st, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := s.config(t, l.Plan().Database.Location, l.Plan().Queries.Location, loc)
	cfg.Campaign = &engine.Campaign{Location: loc, Ledger: l, Holder: "p0-abcd", Namespace: "ns", Name: "c", Partition: "c-p0-r0"}
	cfg.Metrics = enginemetrics.NewSet(enginemetrics.Labels{Namespace: "ns", Campaign: "c", Partition: "c-p0-r0"})
	sum, err := engine.RunLocal(context.Background(), cfg, s.workers)
	if err != nil {
		t.Fatal(err)
	}

	runs, err := runrecord.ReadRuns(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 {
		t.Fatalf("%d run records, want 1", len(runs))
	}
	r := runs[0]
	if r.State != runrecord.RunComplete || r.Holder != "p0-abcd" || r.Campaign != "c" || r.Partition != "c-p0-r0" || r.Summary == nil {
		t.Fatalf("run record %+v, want complete, holder p0-abcd, campaign c, partition c-p0-r0, with a summary", r)
	}
	if len(r.Summary.Ranks) != 3 {
		t.Fatalf("%d ranks in the record, want 3", len(r.Summary.Ranks))
	}
	for _, rk := range r.Summary.Ranks {
		if rk.Started.IsZero() || len(rk.Timeline) == 0 {
			t.Fatalf("rank %d: no start or no timeline", rk.Rank)
		}
		var compute float64
		for _, iv := range rk.Timeline {
			if iv.End < iv.Start || iv.Start < 0 || iv.End > rk.WallSeconds+0.01 {
				t.Fatalf("rank %d: interval %+v outside [0, wall %g]", rk.Rank, iv, rk.WallSeconds)
			}
			if iv.Phase == "compute" {
				compute += iv.End - iv.Start
			}
		}
		// Coalescing may join intervals across tiny gaps; never lose time.
		if compute < rk.Phases["compute"]-0.01 {
			t.Errorf("rank %d: timeline compute %.3fs < summary's %.3fs", rk.Rank, compute, rk.Phases["compute"])
		}
	}
	if h := r.Summary.TaskSeconds; h == nil || h.Count() != int64(sum.Tasks) || len(r.Summary.SlowestTasks) == 0 {
		t.Errorf("task statistics %+v, want %d tasks counted and the slowest listed", h, sum.Tasks)
	}
	if sl := r.Summary.SlowestTasks[0]; sl.FirstQuery == "" || sl.Chunk == "" || sl.Queries < 1 {
		t.Errorf("slowest task %+v lacks its queries or chunk", sl)
	}

	reg := cfg.Metrics.Registry()
	for name, want := range map[string]float64{
		"blastfleet_engine_tasks_total":              float64(sum.Tasks),
		"blastfleet_engine_queries_total":            30,
		"blastfleet_engine_written_bytes_total":      float64(sum.BytesWritten),
		"blastfleet_engine_chunk_seconds":            0, // checked below: a histogram
		"blastfleet_engine_ledger_requests_total":    0,
		"blastfleet_engine_shard_cache_misses_total": 0,
	} {
		n, err := testutil.GatherAndCount(reg, name)
		if err != nil || n == 0 {
			t.Errorf("%s: %d series (%v)", name, n, err)
			continue
		}
		if want > 0 {
			if got := sumOf(t, reg, name); got != want {
				t.Errorf("%s = %g, want %g", name, got, want)
			}
		}
	}
	problems, err := testutil.GatherAndLint(reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint %s: %s", p.Metric, p.Text)
	}
}

// sumOf adds a counter's values across its series.
func sumOf(t *testing.T, g interface {
	Gather() ([]*dto.MetricFamily, error)
}, name string) float64 {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var v float64
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			v += m.GetCounter().GetValue()
		}
	}
	if v == 0 && !strings.HasSuffix(name, "_total") {
		t.Fatalf("%s is not a counter", name)
	}
	return v
}

// A run told to stop (SIGTERM) says so in its record, with every rank's
// account, and leaves its chunks to others.
func TestCampaignRunStopped(t *testing.T) {
	f := synthFixture(t, nuclFamilies())
	s := search{program: blast.Blastn, outfmt: "6 std", workers: 2, groupBytes: 1}
	db := f.shards(t, 2)
	loc, st := planCampaign(t, f, db, s, 1, 30)
	l, err := ledger.Open(context.Background(), st, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := s.config(t, l.Plan().Database.Location, l.Plan().Queries.Location, loc)
	cfg.Campaign = &engine.Campaign{Location: loc, Ledger: l, Holder: "p0-stop"}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := engine.RunLocal(ctx, cfg, s.workers)
		done <- err
	}()
	// Stop once the first chunk is committed: mid-campaign.
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		status, err := l.Status(context.Background())
		if err == nil && status.Committed > 0 {
			break
		}
		if time.Since(start) > time.Minute {
			t.Fatal("no chunk committed within a minute")
		}
	}
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a stopped run returned no error")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the run did not stop within 30 s of its cancellation")
	}
	runs, err := runrecord.ReadRuns(context.Background(), st)
	if err != nil || len(runs) != 1 {
		t.Fatalf("run records %+v (%v), want 1", runs, err)
	}
	r := runs[0]
	if r.State != runrecord.RunStopped || r.Error == "" || r.Summary == nil || len(r.Summary.Ranks) != 3 {
		t.Fatalf("record state %q error %q with %d ranks, want stopped, the cause, and all 3 ranks", r.State, r.Error, len(r.Summary.Ranks))
	}
	status, err := l.Status(context.Background())
	if err != nil || status.Complete {
		t.Fatalf("status %+v (%v): a campaign stopped mid-way is not complete", status, err)
	}
}
