package engine

import (
	"fmt"
	"strings"

	"github.com/go-logr/logr"

	"github.com/blastfleet/blastfleet/internal/engine/enginemetrics"
	"github.com/blastfleet/blastfleet/internal/engine/output"
	"github.com/blastfleet/blastfleet/internal/plan/search"
)

// Config is one search. Every rank builds the same Config from the same
// command line (or the same campaign plan).
type Config struct {
	// Spec is what is searched for and how BLAST is asked, as validated by
	// package search (a campaign's plan holds it as it is).
	search.Spec
	Database string // DIR or s3://bucket/prefix holding manifest.json
	// DatabaseManifest and DatabaseSHA256 pin the manifest a campaign was
	// planned against (its build's own copy, by key under Database, and
	// its hash); empty: the database's current manifest.json, unchecked.
	DatabaseManifest string
	DatabaseSHA256   string
	// DatabaseReplicas are other stores holding the database's build
	// (--database-replica); empty: the replicas recorded in its manifest
	// whose variables are set (openReplicas).
	DatabaseReplicas []string
	Queries          string // FASTA or FASTA.gz, local path or s3://bucket/key
	Output           string // FILE or s3://bucket/key
	Threads          int    // BLAST threads per worker (the worker's slots)
	BlockLetters     int    // 0: guided (blocks shrink as work runs out)
	GroupBytes       int64  // database bytes per task; 0: the whole database
	CacheDir         string
	// TaskLimits bound each BLAST run (zero value: DefaultTaskLimits).
	TaskLimits  TaskLimits
	CacheBytes  int64 // 0: unbounded
	WriteBuffer int64 // MBS: bytes a writer collects before writing
	Strategy    output.Strategy
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
	if err := c.Spec.Validate(); err != nil {
		return err
	}
	if err := c.checkRegenerating(); err != nil {
		return err
	}
	if err := c.taskLimits().validate(); err != nil {
		return err
	}
	switch {
	case c.Database == "" && c.Sim == nil:
		return fmt.Errorf("--database is required")
	case len(c.DatabaseReplicas) > 0 && c.Sim != nil:
		return fmt.Errorf("--database-replica cannot be used with --backend simulate: no database is read")
	case c.Queries == "" && (c.Sim == nil || !c.Sim.Generate):
		return fmt.Errorf("--queries is required")
	case c.Output == "":
		return fmt.Errorf("--output is required")
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
	return c.checkReplicas()
}

// checkReplicas refuses empty or repeated --database-replica locations.
func (c *Config) checkReplicas() error {
	seen := map[string]bool{}
	for _, loc := range c.DatabaseReplicas {
		switch {
		case strings.TrimSpace(loc) == "":
			return fmt.Errorf("--database-replica must not be empty")
		case seen[loc]:
			return fmt.Errorf("--database-replica %s is given twice", loc)
		}
		seen[loc] = true
	}
	return nil
}

// shardTargetSeqs is -max_target_seqs for one shard group's search.
func (c *Config) shardTargetSeqs(dbSequences int64, groups int) int {
	switch {
	case c.Program.WholeDatabase():
		// One search of the whole database: BLAST's own cut is the
		// answer, kept verbatim by the merge.
		return c.MaxTargetSeqs
	case c.TopHits.Exact:
		// Untruncated: every subject of the database may be reported.
		return int(max(dbSequences, int64(c.MaxTargetSeqs)))
	case c.TopHits.Auto && groups == 1:
		return c.MaxTargetSeqs
	}
	return c.MaxTargetSeqs * c.TopHits.Factor
}
