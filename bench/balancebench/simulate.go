package main

import (
	"fmt"
	"sort"

	"github.com/blastfleet/blastfleet/internal/engine/simulate"
)

const (
	simShards   = 8
	simSubjects = 20000
)

// simWorkload is a generated skewed query set: the engine's flags, and
// each query's compute time from the same model (all shards, one task).
func (b *bench) simWorkload() (*workload, error) {
	o := b.o
	sizes, err := simulate.ParseHistogram(o.simSizes)
	if err != nil {
		return nil, fmt.Errorf("-sim-query-sizes: %w", err)
	}
	c := simulate.DefaultConfig()
	c.Seed, c.QueryCount, c.QuerySizes = uint64(o.seed), o.simQueries, sizes
	c.Shards, c.Subjects, c.ByteSeconds = simShards, simSubjects, o.simByteSeconds
	m, err := simulate.New(c)
	if err != nil {
		return nil, err
	}
	w := &workload{name: "simulate", shards: simShards, costOf: "the model's compute time of each query alone against the whole database (simulate.Model.Compute)",
		args: []string{"--backend", "simulate", "--sim-seed", fmt.Sprint(o.seed), "--sim-queries", fmt.Sprint(o.simQueries),
			"--sim-query-sizes", o.simSizes, "--sim-shards", fmt.Sprint(simShards), "--sim-subjects", fmt.Sprint(simSubjects),
			"--sim-byte-seconds", fmt.Sprint(o.simByteSeconds), "--group-bytes", "1"}}
	all := make([]int, simShards)
	for s := range all {
		all[s] = s
	}
	var long []string
	for i, q := range m.Queries() {
		d, err := m.Compute(i, []simulate.Query{q}, all)
		if err != nil {
			return nil, err
		}
		w.queries, w.lengths, w.costs = append(w.queries, q.ID), append(w.lengths, q.Len), append(w.costs, d.Seconds())
		if q.Len >= 5000 {
			long = append(long, fmt.Sprintf("%s (%d letters, %.1f s)", q.ID, q.Len, d.Seconds()))
		}
	}
	sorted := append([]int{}, w.lengths...)
	sort.Ints(sorted)
	var total int
	for _, l := range sorted {
		total += l
	}
	w.about = []string{
		fmt.Sprintf("generated (seed %d): %d queries (%d letters, median %d) with lengths from %q; the long ones: %v",
			o.seed, o.simQueries, total, sorted[len(sorted)/2], o.simSizes, long),
		fmt.Sprintf("model: %d shards (one per task: --group-bytes 1), %d subjects, 1000-2000 results per query, start-up 0.065 s per task, %g s per result byte, speed 1, spend sleep",
			simShards, simSubjects, o.simByteSeconds),
		fmt.Sprintf("per-query compute times: %s", costSummary(w.costs)),
	}
	return w, nil
}
