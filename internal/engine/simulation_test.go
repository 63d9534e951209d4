package engine_test

import (
	"bytes"
	"context"
	"fmt"
	spec "github.com/blastfleet/blastfleet/internal/plan/search"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-logr/logr/testr"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/engine"
	"github.com/blastfleet/blastfleet/internal/engine/merge"
	"github.com/blastfleet/blastfleet/internal/engine/output"
	"github.com/blastfleet/blastfleet/internal/engine/simulate"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
)

// simModel is a small simulated database and query set: 24 queries of
// very different lengths (so static splits differ from blocks cut on
// demand), 12 shards, compute made negligible by the speed.
func simModel(t *testing.T, seed uint64) *simulate.Model {
	t.Helper()
	c := simulate.DefaultConfig()
	c.Seed, c.QueryCount, c.Shards, c.Subjects = seed, 24, 12, 3000
	c.QuerySizes = simulate.MustHistogram("50-400:0.7,2000-9000:0.3")
	c.Results = simulate.MustHistogram("40-160:1")
	c.Speed = 1000
	m, err := simulate.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// simConfig is a simulated search of the model's own queries into out,
// with every result kept.
func simConfig(t *testing.T, m *simulate.Model, out string) *engine.Config {
	t.Helper()
	format, err := blast.ParseFormat("6 std")
	if err != nil {
		t.Fatal(err)
	}
	return &engine.Config{Output: out, Threads: 1, WriteBuffer: 1,
		Spec:     spec.Spec{Program: blast.Blastn, Format: format, MaxTargetSeqs: 100000, TopHits: merge.TopHits{Auto: true, Factor: merge.DefaultOverfetch}},
		Strategy: output.WorkerMerge{}, Sim: &engine.Simulation{Model: m, Generate: true}, Log: testr.New(t)}
}

// Whatever the workers, shard groups, schedule and strategy, a seed's
// output is the same bytes; another seed's differs.
func TestSimulateOutputIndependentOfRun(t *testing.T) {
	m := simModel(t, 5)
	run := func(t *testing.T, cfg *engine.Config, workers int) ([]byte, *engine.Summary) {
		t.Helper()
		sum, err := engine.RunLocal(context.Background(), cfg, workers)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(cfg.Output)
		if err != nil {
			t.Fatal(err)
		}
		return got, sum
	}
	base, sum := run(t, simConfig(t, m, filepath.Join(t.TempDir(), "base.tsv")), 1)
	if n := bytes.Count(base, []byte("\n")); n < 24*40 || sum.Hits != int64(n) {
		t.Fatalf("%d lines, summary says %d hits; want every result of 24 queries (at least 40 each)", n, sum.Hits)
	}
	if sum.Backend != "simulate" || sum.Simulation == nil || sum.Simulation.Seed != 5 || sum.Shards != 12 {
		t.Errorf("summary: backend %q, simulation %+v, %d shards", sum.Backend, sum.Simulation, sum.Shards)
	}
	cases := []struct {
		workers    int
		groupBytes int64
		schedule   engine.Schedule
		strategy   string
		sync       bool
	}{
		{3, 0, engine.Dynamic, "worker-merge", false},
		{4, 1, engine.Dynamic, "worker-collective", true},
		{3, 1, engine.LengthSplit, "worker-individual", false},
		{5, 1, engine.WeightSplit, "master-writing", true},
		{6, 20000, engine.LengthSplit, "worker-collective", false},
		{30, 1, engine.WeightSplit, "worker-merge", false}, // more workers than queries
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("workers=%d/group-bytes=%d/%s/%s/sync=%v", c.workers, c.groupBytes, c.schedule, c.strategy, c.sync), func(t *testing.T) {
			cfg := simConfig(t, m, filepath.Join(t.TempDir(), "out.tsv"))
			cfg.GroupBytes, cfg.Schedule, cfg.QuerySync = c.groupBytes, c.schedule, c.sync
			var err error
			if cfg.Strategy, err = output.ParseStrategy(c.strategy); err != nil {
				t.Fatal(err)
			}
			got, sum := run(t, cfg, c.workers)
			if !bytes.Equal(got, base) {
				t.Fatalf("output (%d bytes) differs from one worker's (%d bytes)", len(got), len(base))
			}
			if sum.Schedule != c.schedule.String() {
				t.Errorf("summary schedule %q, want %q", sum.Schedule, c.schedule)
			}
			for _, r := range sum.Ranks {
				if r.Role == "worker" && r.Tasks > 0 && !(r.Phases["compute"] > 0 && r.BlastSeconds > 0) {
					t.Errorf("rank %d ran %d tasks but reports compute %v", r.Rank, r.Tasks, r.Phases["compute"])
				}
			}
		})
	}
	other, _ := run(t, simConfig(t, simModel(t, 6), filepath.Join(t.TempDir(), "seed6.tsv")), 2)
	if bytes.Equal(other, base) {
		t.Error("seeds 5 and 6 wrote the same output")
	}
}

// A simulated campaign reads its queries from the plan's FASTA; with the
// model's own queries written there, its result equals the generated run,
// whatever the schedule.
func TestSimulateCampaign(t *testing.T) {
	m := simModel(t, 9)
	want := filepath.Join(t.TempDir(), "want.tsv")
	if _, err := engine.RunLocal(context.Background(), simConfig(t, m, want), 2); err != nil {
		t.Fatal(err)
	}
	wantBytes, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	var fa bytes.Buffer
	if err := simulate.WriteFASTA(&fa, m.Queries()); err != nil {
		t.Fatal(err)
	}
	f := &fixture{queries: filepath.Join(t.TempDir(), "q.fa")}
	if err := os.WriteFile(f.queries, fa.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	s := search{program: blast.Blastn, outfmt: "6 std", workers: 3}
	for _, sched := range []engine.Schedule{engine.Dynamic, engine.WeightSplit} {
		t.Run(sched.String(), func(t *testing.T) {
			loc, st := planCampaign(t, f, "s3://unused/by-simulate", s, 5, 24)
			l, err := ledger.Open(context.Background(), st, ledger.Options{})
			if err != nil {
				t.Fatal(err)
			}
			cfg := simConfig(t, m, loc)
			cfg.Sim.Generate, cfg.Queries, cfg.Schedule = false, f.queries, sched
			cfg.Campaign = &engine.Campaign{Location: loc, Ledger: l, Holder: "p0"}
			sum, err := engine.RunLocal(context.Background(), cfg, s.workers)
			if err != nil {
				t.Fatal(err)
			}
			if sum.ChunksCommitted != 5 {
				t.Errorf("%d chunks committed, want 5", sum.ChunksCommitted)
			}
			var got bytes.Buffer
			if err := ledger.StreamResults(context.Background(), st, &got); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), wantBytes) {
				t.Fatalf("campaign result (%d bytes) differs from the single run (%d bytes)", got.Len(), len(wantBytes))
			}
		})
	}
}
