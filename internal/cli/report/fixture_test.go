package report_test

import (
	"context"
	"github.com/blastfleet/blastfleet/internal/plan/search"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/internal/storage/runrecord"
)

// campaignDir writes a plan of queries in chunks of two to a directory
// store, as `blastfleet campaign plan` would.
func campaignDir(t *testing.T, queries int, policy ledger.Policy) (string, objstore.Store) {
	t.Helper()
	loc := filepath.Join(t.TempDir(), "campaign")
	st, err := objstore.NewDir(loc)
	if err != nil {
		t.Fatal(err)
	}
	p := &ledger.Plan{Name: "human-vs-sprot",
		Queries:  ledger.Queries{Location: "/data/q.fa", SHA256: strings.Repeat("a", 64), Size: 100, Count: queries, Letters: int64(100 * queries)},
		Database: ledger.Database{Location: "/data/db", Name: "sprot", Type: "prot", ManifestSHA256: strings.Repeat("b", 64)},
		Search:   search.MustParse(search.Request{Program: "blastp", Outfmt: "6", MaxTargetSeqs: 500, TopHits: "auto"}),
		Chunks:   ledger.ChunkByQueries(queries, 2),
		Policy:   policy,
	}
	if err := ledger.WritePlan(context.Background(), st, p); err != nil {
		t.Fatal(err)
	}
	return loc, st
}

// t0 is when the synthetic runs start.
var t0 = time.Date(2025, 3, 4, 10, 0, 0, 0, time.UTC)

// rank is a synthetic rank whose timeline is the intervals given.
func rank(n int, role string, started time.Time, ivs ...runrecord.Interval) runrecord.RankSummary {
	r := runrecord.RankSummary{Rank: n, Role: role, Started: started, Phases: map[string]float64{}, Timeline: ivs}
	for _, iv := range ivs {
		r.Phases[iv.Phase] += iv.End - iv.Start
		r.WallSeconds = max(r.WallSeconds, iv.End)
	}
	if role == "worker" {
		r.BlastSeconds = r.Phases["compute"]
		r.CacheHits, r.CacheMisses = 3, 1
		r.Tasks = 4
	}
	return r
}

func iv(phase string, s, e float64) runrecord.Interval {
	return runrecord.Interval{Phase: phase, Start: s, End: e}
}

// histogram is a task histogram with the engine's bounds shape: values
// go in the first bucket whose bound is at least the value.
func histogram(values ...float64) *runrecord.Histogram {
	bounds := []float64{0.001, 0.01, 0.1, 1, 10, 100, 1000}
	h := &runrecord.Histogram{Bounds: bounds, Counts: make([]int64, len(bounds)+1)}
	for _, v := range values {
		i := 0
		for i < len(bounds) && v > bounds[i] {
			i++
		}
		h.Counts[i]++
		h.Sum += v
	}
	return h
}

// writeRuns writes three synthetic run records: a complete one, a failed
// one, and one still "running" that fell silent long ago. It returns how
// many timeline intervals they hold.
func writeRuns(t *testing.T, st objstore.Store) int {
	t.Helper()
	complete := runrecord.RunRecord{Holder: "p0-aaaa1111", Partition: "0", State: runrecord.RunComplete, Started: t0, Updated: t0.Add(95 * time.Second),
		Summary: &runrecord.Summary{Program: "blastp", Slots: 2, Started: t0, WallSeconds: 95, Tasks: 8, QueriesWritten: 4, ChunksCommitted: 2, BytesWritten: 4096,
			TaskSeconds: histogram(0.5, 2, 3, 20, 40),
			SlowestTasks: []runrecord.TaskRecord{
				{Rank: 1, Group: 0, Shards: []int{0, 1, 2, 5}, FirstQuery: "<script>alert(1)</script>", LastQuery: "<script>alert(1)</script>", Queries: 1, Letters: 300, Seconds: 40, Chunk: "[2,4)"},
				{Rank: 2, Group: 1, Shards: []int{3}, FirstQuery: "q7", LastQuery: "q9", Queries: 3, Letters: 900, Seconds: 20, Chunk: "[4,6)"},
			},
			Ranks: []runrecord.RankSummary{
				rank(0, "master", t0, iv("setup", 0, 2), iv("distribution", 2, 90), iv("merge", 40, 41), iv("write", 40.2, 40.6)),
				rank(1, "worker", t0.Add(time.Second), iv("setup", 0, 1.5), iv("compute", 1.5, 60), iv("write", 60, 61), iv("compute", 61, 90)),
				rank(2, "worker", t0.Add(time.Second), iv("setup", 0, 1.2), iv("compute", 1.2, 80), iv("sync", 80, 90)),
			}}}
	// Rank 1 read a replicated database: the primary was skipped once.
	complete.Summary.Ranks[1].Stores = []runrecord.StoreReads{
		{Store: "s3://primary/db", State: "healthy", Bytes: 3 << 20, Pieces: 3, Skips: 1, SkipReasons: []string{"10:00:05 skipped: throughput 0.3 MiB/s, best 40 MiB/s"}},
		{Store: "s3://mirror/db", State: "healthy", Bytes: 9 << 20, Pieces: 9, HedgesWon: 1},
	}
	failed := runrecord.RunRecord{Holder: "p1-bbbb2222", Partition: "1", State: runrecord.RunFailed, Error: "worker 2: <b>blastp</b> killed", Started: t0.Add(30 * time.Second), Updated: t0.Add(70 * time.Second),
		Summary: &runrecord.Summary{Program: "blastp", Slots: 2, Started: t0.Add(30 * time.Second), WallSeconds: 40, Tasks: 2,
			TaskSeconds:  histogram(1.5, 7),
			SlowestTasks: []runrecord.TaskRecord{{Rank: 1, Group: 0, Shards: []int{0}, FirstQuery: "q1", LastQuery: "q1", Queries: 1, Letters: 50, Seconds: 7}},
			Ranks: []runrecord.RankSummary{
				rank(0, "master", t0.Add(30*time.Second), iv("setup", 0, 3), iv("distribution", 3, 40)),
				rank(1, "worker", t0.Add(31*time.Second), iv("setup", 0, 2), iv("compute", 2, 39)),
			}}}
	silent := runrecord.RunRecord{Holder: "p1-cccc3333", Partition: "1", State: runrecord.RunRunning, Started: t0.Add(80 * time.Second), Updated: t0.Add(100 * time.Second),
		Summary: &runrecord.Summary{Program: "blastp", Started: t0.Add(80 * time.Second), WallSeconds: 20,
			Ranks: []runrecord.RankSummary{rank(0, "master", t0.Add(80*time.Second), iv("setup", 0, 4), iv("distribution", 4, 20))}}}
	n := 0
	for _, r := range []runrecord.RunRecord{complete, failed, silent} {
		if err := runrecord.WriteRun(context.Background(), st, &r); err != nil {
			t.Fatal(err)
		}
		for _, rk := range r.Summary.Ranks {
			n += len(rk.Timeline)
		}
	}
	return n
}
