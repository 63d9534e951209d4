// Package runrecord is a run's account of itself: the summary of an
// engine run (per rank phases, timelines, task times), and in a campaign
// the run record each partition keeps beside the ledger. The engine
// writes them; the CLI, its status and the HTML report read them without
// linking the engine.
package runrecord

import (
	"fmt"
	"io"
	"sort"
	"time"
)

// Phases are S3aSim's names for where a rank's time goes, and ours for
// the regeneration of reports (-outfmt 0, 5, 7, 15, 16).
var Phases = []string{"setup", "distribution", "compute", "regenerate", "merge", "gather", "write", "sync", "other"}

// RankSummary is one rank's account of the run.
type RankSummary struct {
	Rank          int                `json:"rank"`
	Role          string             `json:"role"`
	Started       time.Time          `json:"started"`
	WallSeconds   float64            `json:"wallSeconds"`
	Phases        map[string]float64 `json:"phases"`
	Tasks         int                `json:"tasks"`
	BlastSeconds  float64            `json:"blastSeconds"`
	CacheHits     int64              `json:"cacheHits"`
	CacheMisses   int64              `json:"cacheMisses"`
	BytesFetched  int64              `json:"bytesFetched"`
	BytesWritten  int64              `json:"bytesWritten"`
	BlocksWritten int                `json:"blocksWritten"`
	// Stores is what a worker read from each store of a replicated
	// database (the primary first): absent when it read one.
	Stores []StoreReads `json:"stores,omitempty"`
	// Timeline is where the rank's time went, interval by interval.
	Timeline []Interval `json:"timeline,omitempty"`
}

// StoreReads is one store's part in a worker's shard reads: bytes and
// pieces it served, failed reads, the times it was skipped as a hot spot
// or after failing (the latest reasons, timed), and hedged pieces it won.
type StoreReads struct {
	Store       string   `json:"store"`
	State       string   `json:"state"`
	Bytes       int64    `json:"bytes"`
	Pieces      int64    `json:"pieces"`
	Errors      int64    `json:"errors,omitempty"`
	Skips       int      `json:"skips,omitempty"`
	SkipReasons []string `json:"skipReasons,omitempty"`
	HedgesWon   int64    `json:"hedgesWon,omitempty"`
	BusySeconds float64  `json:"busySeconds"`
}

// Summary is the run's account: what ran, how long, and per rank.
type Summary struct {
	Program   string `json:"program"`
	Output    string `json:"output"`
	Strategy  string `json:"strategy"`
	QuerySync bool   `json:"querySync"`
	// Slots are the worker ranks' BLAST threads in all (workers x
	// --threads): what the run holds of its machines, for its cost.
	Slots    int    `json:"slots,omitempty"`
	Backend  string `json:"backend"`
	Schedule string `json:"schedule"`
	// Simulation is what the simulate backend ran with (nil for BLAST).
	Simulation   *SimSummary `json:"simulation,omitempty"`
	TopHits      string      `json:"topHits"`
	Queries      int         `json:"queries"`
	QueryLetters int64       `json:"queryLetters"`
	// Batching is how queries were cut into BLAST+ batches (blast or
	// alone) and BatchLetters B, the letters of a batch.
	Batching     string `json:"batching,omitempty"`
	BatchLetters int    `json:"batchLetters,omitempty"`
	Batches      int    `json:"batches,omitempty"`
	// SearchedAlone are the query ranges searched each query alone
	// although the search has BLAST+ batches: chunks split to isolate a
	// failing query, which cut through a batch.
	SearchedAlone []QueryRange `json:"searchedAlone,omitempty"`
	// FirstTaskSeconds is the time from the start to the first task
	// assigned; TaskOverheadSeconds a task's fixed cost besides its search
	// (process start, database opening: fitted from the tasks' times), and
	// MinBlockLetters the smallest guided block that keeps it under 2% of
	// a task's time.
	FirstTaskSeconds    float64 `json:"firstTaskSeconds,omitempty"`
	TaskOverheadSeconds float64 `json:"taskOverheadSeconds,omitempty"`
	MinBlockLetters     int64   `json:"minBlockLetters,omitempty"`
	// Decomposition is how the work was cut into tasks, and why.
	Decomposition string `json:"decomposition,omitempty"`
	Shards        int    `json:"shards"`
	ShardGroups   int    `json:"shardGroups"`
	Blocks        int    `json:"blocks"`
	Tasks         int    `json:"tasks"`
	// TailTasks are the search's last tasks that ran with the idle slots
	// of their host as BLAST+ threads (fewer tasks left than workers).
	TailTasks int `json:"tailTasks,omitempty"`
	// Regenerations are the tasks that made reports (-outfmt 0, 5, 7,
	// 15, 16) of merged blocks, one BLAST run per query; not in Tasks.
	Regenerations int `json:"regenerations,omitempty"`
	// TieBreaks are the tasks that put subjects tied in printed E-value
	// and score across shard groups in BLAST's order, for TiedQueries
	// queries; not in Tasks.
	TieBreaks   int   `json:"tieBreaks,omitempty"`
	TiedQueries int   `json:"tiedQueries,omitempty"`
	Hits        int64 `json:"hits"`
	// QueriesWritten counts queries merged and handed to writers.
	QueriesWritten  int `json:"queriesWritten"`
	ChunksCommitted int `json:"chunksCommitted,omitempty"`
	ChunksFailed    int `json:"chunksFailed,omitempty"`
	// ChunksStopped were given up healthy when the run was told to stop.
	ChunksStopped int     `json:"chunksStopped,omitempty"`
	BytesWritten  int64   `json:"bytesWritten"`
	WallSeconds   float64 `json:"wallSeconds"`
	// Efficiency is BLAST busy time over workers x wall time.
	Efficiency float64 `json:"parallelEfficiency"`
	WriteShare float64 `json:"writeShare"`
	// ComputeImbalance is the workers' largest compute time over their
	// mean (the Blue Gene/P paper's max/mean group time; 1 is perfect).
	ComputeImbalance float64   `json:"computeImbalance"`
	Started          time.Time `json:"started"`
	// TaskSeconds is the distribution of task times (BLAST's, or the
	// model's), SlowestTasks the slowest of them.
	TaskSeconds  *Histogram    `json:"taskSeconds,omitempty"`
	SlowestTasks []TaskRecord  `json:"slowestTasks,omitempty"`
	Ranks        []RankSummary `json:"ranks"`
}

// QueryRange is a run of consecutive queries, by their ids.
type QueryRange struct {
	First string `json:"first"`
	Last  string `json:"last"`
	Count int    `json:"count"`
}

// SimSummary is the simulate backend's setting: with the command line it
// identifies the output (every run with the same seed writes the same).
type SimSummary struct {
	Seed      uint64  `json:"seed"`
	Speed     float64 `json:"speed"`
	Spend     string  `json:"spend"`
	Subjects  int     `json:"subjects"`
	Generated bool    `json:"generatedQueries"`
}

// BlastSeconds is the workers' summed BLAST time.
func (s *Summary) BlastSeconds() float64 {
	var t float64
	for _, r := range s.Ranks {
		t += r.BlastSeconds
	}
	return t
}

// Finish orders the ranks and computes the run's shares from them, once
// every rank's account is in.
func (s *Summary) Finish() {
	sort.Slice(s.Ranks, func(i, j int) bool { return s.Ranks[i].Rank < s.Ranks[j].Rank })
	var write, wall, compute, maxCompute float64
	workers := 0
	for _, r := range s.Ranks {
		wall += r.WallSeconds
		write += r.Phases["write"]
		if r.Role == "worker" {
			workers++
			compute += r.Phases["compute"]
			maxCompute = max(maxCompute, r.Phases["compute"])
		}
	}
	if compute > 0 {
		s.ComputeImbalance = maxCompute / (compute / float64(workers))
	}
	if workers > 0 && s.WallSeconds > 0 {
		s.Efficiency = s.BlastSeconds() / (float64(workers) * s.WallSeconds)
	}
	if wall > 0 {
		s.WriteShare = write / wall
	}
}

// Print writes the summary for people.
func (s *Summary) Print(w io.Writer) {
	fmt.Fprintf(w, "%s: %d queries (%d letters), %d shards in %d groups, %d blocks, %d tasks, %d hits, %d bytes written to %s\n",
		s.Program, s.Queries, s.QueryLetters, s.Shards, s.ShardGroups, s.Blocks, s.Tasks, s.Hits, s.BytesWritten, s.Output)
	sync := ""
	if s.QuerySync {
		sync = " with query sync"
	}
	fmt.Fprintf(w, "wall %.2fs, parallel efficiency %.3f, write share %.4f%%, strategy %s%s, top hits %s\n",
		s.WallSeconds, s.Efficiency, 100*s.WriteShare, s.Strategy, sync, s.TopHits)
	backend := s.Backend
	if sim := s.Simulation; sim != nil {
		backend = fmt.Sprintf("simulate (seed %d, speed %g, %s)", sim.Seed, sim.Speed, sim.Spend)
	}
	fmt.Fprintf(w, "backend %s, schedule %s, worker compute max/mean %.3f\n", backend, s.Schedule, s.ComputeImbalance)
	if s.Batching != "" {
		fmt.Fprintf(w, "batching %s: %d BLAST+ batches of %d letters; %s\n", s.Batching, s.Batches, s.BatchLetters, s.Decomposition)
	}
	if s.FirstTaskSeconds > 0 {
		fmt.Fprintf(w, "first task after %.3fs", s.FirstTaskSeconds)
		if s.TaskOverheadSeconds > 0 {
			fmt.Fprintf(w, ", a task's fixed cost %.3fs (blocks of at least %d letters keep it under 2%%)", s.TaskOverheadSeconds, s.MinBlockLetters)
		}
		fmt.Fprintln(w)
	}
	if s.TailTasks > 0 {
		fmt.Fprintf(w, "%d last tasks ran with their host's idle slots as BLAST+ threads\n", s.TailTasks)
	}
	if s.TieBreaks > 0 {
		fmt.Fprintf(w, "%d tie-break searches put %d queries' subjects tied in printed E-value across shard groups in BLAST's order (their time is the regenerate phase)\n",
			s.TieBreaks, s.TiedQueries)
	}
	fmt.Fprintf(w, "%-5s %-7s %6s", "rank", "role", "tasks")
	for _, p := range Phases {
		fmt.Fprintf(w, " %12s", p)
	}
	fmt.Fprintf(w, " %6s %6s\n", "hits", "misses")
	for _, r := range s.Ranks {
		fmt.Fprintf(w, "%-5d %-7s %6d", r.Rank, r.Role, r.Tasks)
		for _, p := range Phases {
			fmt.Fprintf(w, " %11.3fs", r.Phases[p])
		}
		fmt.Fprintf(w, " %6d %6d\n", r.CacheHits, r.CacheMisses)
	}
}
