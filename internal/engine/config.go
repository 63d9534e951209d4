package engine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/go-logr/logr"

	"github.com/blastfleet/blastfleet/internal/blast"
	"github.com/blastfleet/blastfleet/internal/enginemetrics"
	"github.com/blastfleet/blastfleet/internal/output"
)

// TopHits says how shard groups are searched when -max_target_seqs may
// truncate. BLAST's own truncation is a heuristic that can drop hits better
// than ones it keeps (DESIGN.md §3), so a group searched with N and merged
// is not the unsharded search's top N; the modes trade that off.
type TopHits struct {
	// Auto searches with N, as BLAST does, when one group holds the whole
	// database (the output is then the unsharded search's, line for line),
	// and over-fetches with Factor otherwise.
	Auto   bool
	Exact  bool // search groups untruncated: the exact global top N
	Factor int  // overfetch: search groups with Factor x N
}

// DefaultOverfetch is the default per-shard over-fetch factor; measured at
// 99.3% recall of the exact top 50 on a real set (DESIGN.md §3).
const DefaultOverfetch = 4

// DefaultMaxTargetSeqs is BLAST+'s own default.
const DefaultMaxTargetSeqs = 500

// ParseTopHits parses --top-hits: auto | exact | overfetch | overfetch=F.
func ParseTopHits(s string) (TopHits, error) {
	switch {
	case s == "" || s == "auto":
		return TopHits{Auto: true, Factor: DefaultOverfetch}, nil
	case s == "exact":
		return TopHits{Exact: true}, nil
	case s == "overfetch":
		return TopHits{Factor: DefaultOverfetch}, nil
	case strings.HasPrefix(s, "overfetch="):
		f, err := strconv.Atoi(strings.TrimPrefix(s, "overfetch="))
		if err != nil || f < 1 {
			return TopHits{}, fmt.Errorf("--top-hits %q: the factor must be an integer >= 1", s)
		}
		return TopHits{Factor: f}, nil
	}
	return TopHits{}, fmt.Errorf("--top-hits %q: want auto, exact, overfetch or overfetch=F", s)
}

func (t TopHits) String() string {
	switch {
	case t.Exact:
		return "exact"
	case t.Auto:
		return fmt.Sprintf("auto (as BLAST with one shard group, else overfetch=%d)", t.Factor)
	}
	return fmt.Sprintf("overfetch=%d", t.Factor)
}

// Config is one search. Every rank builds the same Config from the same
// command line.
type Config struct {
	Database      string // DIR or s3://bucket/prefix holding manifest.json
	Queries       string // FASTA or FASTA.gz, local path or s3://bucket/key
	Program       blast.Program
	Format        *blast.Format
	Output        string // FILE or s3://bucket/key
	MaxTargetSeqs int
	Evalue        float64 // 0: BLAST's default (10)
	Options       []blast.Option
	TopHits       TopHits
	Threads       int // BLAST threads per worker (the worker's slots)
	// BLASTBatches lets BLAST+ search each block's queries in its own
	// batches (--blast-batches): the engine before each query was searched
	// alone. A query's hits can then change with its block; benchmarks
	// use it to measure what searching alone costs.
	BLASTBatches bool
	BlockLetters int   // 0: guided (blocks shrink as work runs out)
	GroupBytes   int64 // database bytes per task; 0: the whole database
	CacheDir     string
	CacheBytes   int64 // 0: unbounded
	WriteBuffer  int64 // MBS: bytes a writer collects before writing
	Strategy     output.Strategy
	// QuerySync makes every rank wait after each block's writes until the
	// block is written (S3aSim's query sync), counted in the sync phase.
	QuerySync bool
	// Schedule is how query blocks reach workers: dynamic (Algorithm 1)
	// or a static split made once per unit of work.
	Schedule Schedule
	// Sim, when set, replaces BLAST with S3aSim's model (--backend
	// simulate): no database, shard cache or BLAST+ is used.
	Sim      *Simulation
	Campaign *Campaign // set: lease chunks from a campaign's ledger
	// Metrics, when set, is where each rank's /metrics series live.
	Metrics *enginemetrics.Set
	Log     logr.Logger
}

// Validate checks what can be checked without reading any input.
func (c *Config) Validate() error {
	if c.Sim != nil {
		if err := c.Sim.validate(c); err != nil {
			return err
		}
	}
	switch {
	case c.Database == "" && c.Sim == nil:
		return fmt.Errorf("--database is required")
	case c.Queries == "" && (c.Sim == nil || !c.Sim.Generate):
		return fmt.Errorf("--queries is required")
	case c.Output == "":
		return fmt.Errorf("--output is required")
	case c.Format == nil:
		return fmt.Errorf("--outfmt is required")
	case c.MaxTargetSeqs < 1:
		return fmt.Errorf("--max-target-seqs must be >= 1")
	case c.Evalue < 0:
		return fmt.Errorf("--evalue must be > 0")
	case c.Threads < 1:
		return fmt.Errorf("--threads must be >= 1")
	case c.BlockLetters < 0:
		return fmt.Errorf("--block-letters must be >= 0")
	case c.CacheBytes < 0:
		return fmt.Errorf("--cache-bytes must be >= 0")
	case c.WriteBuffer < 1:
		return fmt.Errorf("--write-buffer must be >= 1")
	case c.Strategy == nil:
		return fmt.Errorf("--strategy is required")
	case c.Schedule < Dynamic || c.Schedule > WeightSplit:
		return fmt.Errorf("--schedule %d: unknown", int(c.Schedule))
	}
	return nil
}

// shardTargetSeqs is -max_target_seqs for one shard group's search.
func (c *Config) shardTargetSeqs(dbSequences int64, groups int) int {
	switch {
	case c.TopHits.Exact:
		// Untruncated: every subject of the database may be reported.
		return int(max(dbSequences, int64(c.MaxTargetSeqs)))
	case c.TopHits.Auto && groups == 1:
		return c.MaxTargetSeqs
	}
	return c.MaxTargetSeqs * c.TopHits.Factor
}
