package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/runrecord"
)

// totals are the runs' accounts added up: the summary's numbers.
type totals struct {
	Runs, Ranks   int
	States        string // "2 complete, 1 failed"
	First, Latest time.Time
	BlastSeconds  float64
	// WorkerWall is workers × wall time, added over runs: BLAST time over
	// it is the parallel efficiency.
	WorkerWall float64
	// Write and Wall are the ranks' time in the write phase and in all:
	// the write share.
	Write, Wall  float64
	Hits, Misses int64
	BytesWritten int64
	// Cost is the runs' core-seconds: worker slots × wall time.
	Cost runrecord.Cost
}

// CostBySite is the core-seconds of each site: "cloud 1.2 h, hpc-a 40 s".
func (t totals) CostBySite() string {
	var parts []string
	for _, site := range slices.Sorted(maps.Keys(t.Cost.Sites)) {
		name := site
		if name == "" {
			name = "(unnamed)"
		}
		parts = append(parts, fmt.Sprintf("%s %s", name, coreTime(t.Cost.Sites[site])))
	}
	return strings.Join(parts, ", ")
}

// coreTime is core-seconds, in hours once they are many.
func coreTime(s float64) string {
	if s >= 3600 {
		return fmt.Sprintf("%.2f core-hours", s/3600)
	}
	return fmt.Sprintf("%.0f core-seconds", s)
}

func sumRuns(runs []runrecord.RunRecord, now time.Time) totals {
	t := totals{Cost: runrecord.CostOf(runs, now)}
	states := map[string]int{}
	for _, r := range runs {
		t.Runs++
		states[r.State]++
		if !r.Started.IsZero() && (t.First.IsZero() || r.Started.Before(t.First)) {
			t.First = r.Started
		}
		if r.Updated.After(t.Latest) {
			t.Latest = r.Updated
		}
		s := r.Summary
		if s == nil {
			continue
		}
		t.Ranks += len(s.Ranks)
		t.BlastSeconds += s.BlastSeconds()
		t.BytesWritten += s.BytesWritten
		workers := 0
		for _, rk := range s.Ranks {
			if rk.Role == "worker" {
				workers++
			}
			t.Write += rk.Phases["write"]
			t.Wall += rk.WallSeconds
			t.Hits += rk.CacheHits
			t.Misses += rk.CacheMisses
		}
		t.WorkerWall += float64(workers) * s.WallSeconds
	}
	var parts []string
	for _, s := range slices.Sorted(maps.Keys(states)) {
		parts = append(parts, fmt.Sprintf("%d %s", states[s], s))
	}
	t.States = strings.Join(parts, ", ")
	return t
}

// Elapsed is the wall time from the first run's start to the latest
// record, or 0 without runs.
func (t totals) Elapsed() float64 {
	if t.First.IsZero() || t.Latest.Before(t.First) {
		return 0
	}
	return t.Latest.Sub(t.First).Seconds()
}

// CacheHitRatio is the workers' shard cache hits over lookups, as text.
func (t totals) CacheHitRatio() string { return ratio(float64(t.Hits), float64(t.Hits+t.Misses)) }
