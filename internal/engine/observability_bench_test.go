package engine_test

import (
	"context"
	spec "github.com/blastfleet/blastfleet/internal/plan/search"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/engine"
	"github.com/blastfleet/blastfleet/internal/engine/enginemetrics"
	"github.com/blastfleet/blastfleet/internal/engine/merge"
	"github.com/blastfleet/blastfleet/internal/engine/output"
	"github.com/blastfleet/blastfleet/internal/engine/simulate"
)

// BenchmarkObservabilityOverhead runs the same simulated search (compute
// made negligible, so the engine's own work is all there is to time) with
// and without per-rank metrics, alternating in one run, and reports the
// ratio of their times: what /metrics and the timelines cost the engine
// per task, at its most exposed.
//
//	go test -run '^$' -bench ObservabilityOverhead -benchtime 5x ./internal/engine/
func BenchmarkObservabilityOverhead(b *testing.B) {
	c := simulate.DefaultConfig()
	c.Seed, c.QueryCount, c.Shards, c.Subjects = 3, 400, 16, 3000
	c.QuerySizes = simulate.MustHistogram("50-400:1")
	c.Results = simulate.MustHistogram("5-20:1")
	c.Speed = 1e6
	m, err := simulate.New(c)
	if err != nil {
		b.Fatal(err)
	}
	format, err := blast.ParseFormat("6 std")
	if err != nil {
		b.Fatal(err)
	}
	const workers = 8
	run := func(metrics bool) (time.Duration, int) {
		cfg := &engine.Config{Output: filepath.Join(b.TempDir(), "out.tsv"), Threads: 1,
			Spec:       spec.Spec{Program: blast.Blastn, Format: format, MaxTargetSeqs: 100000, TopHits: merge.TopHits{Auto: true, Factor: merge.DefaultOverfetch}},
			GroupBytes: 1, BlockLetters: 400, WriteBuffer: 1 << 20, Strategy: output.WorkerMerge{},
			Sim: &engine.Simulation{Model: m, Generate: true}, Log: logr.Discard()}
		if metrics {
			cfg.Metrics = enginemetrics.NewSet(enginemetrics.Labels{Campaign: "bench"})
		}
		t := time.Now()
		sum, err := engine.RunLocal(context.Background(), cfg, workers)
		if err != nil {
			b.Fatal(err)
		}
		return time.Since(t), sum.Tasks
	}
	var off, on time.Duration
	tasks := 0
	for i := 0; i < b.N; i++ {
		d, n := run(false)
		off += d
		d, _ = run(true)
		on += d
		tasks += n
	}
	b.ReportMetric(float64(on)/float64(off), "on/off")
	b.ReportMetric(float64(on-off)/float64(tasks)/1e3, "µs-extra/task")
	b.ReportMetric(float64(tasks)/float64(b.N), "tasks/run")
}
