package main

import (
	"fmt"
	"math"
	"strings"

	"github.com/spf13/pflag"

	"github.com/blastfleet/blastfleet/internal/engine"
	"github.com/blastfleet/blastfleet/internal/engine/simulate"
)

// backends are --backend's values, the default first.
var backends = []string{"blast", "simulate"}

// simFlags are the simulate backend's flags (--sim-*): S3aSim's model
// parameters (internal/engine/simulate).
type simFlags struct {
	seed                        uint64
	queries                     int
	querySizes, subjectSizes    simulate.Histogram
	results                     simulate.Histogram
	shards, subjects            int
	speed, startup, byteSeconds float64
	minResult                   int64
	spend                       string
}

// simFlagNames are every --sim-* flag: each is refused without --backend
// simulate, where it would silently do nothing.
var simFlagNames = []string{"sim-seed", "sim-queries", "sim-query-sizes", "sim-subject-sizes", "sim-results",
	"sim-shards", "sim-subjects", "sim-speed", "sim-startup", "sim-byte-seconds", "sim-min-result", "sim-spend"}

func (s *simFlags) register(fl *pflag.FlagSet) {
	d := simulate.DefaultConfig()
	s.querySizes, s.subjectSizes, s.results = d.QuerySizes, d.SubjectSizes, d.Results
	fl.Uint64Var(&s.seed, "sim-seed", d.Seed, "simulate: the seed every query, database and hit is drawn from (same seed, same output)")
	fl.IntVar(&s.queries, "sim-queries", 0, "simulate: generate this many queries (lengths from --sim-query-sizes) instead of reading --queries")
	fl.Var(&s.querySizes, "sim-query-sizes", "simulate: box histogram of generated query lengths, min-max:weight,...")
	fl.Var(&s.subjectSizes, "sim-subject-sizes", "simulate: box histogram of database sequence lengths")
	fl.Var(&s.results, "sim-results", "simulate: box histogram of hits per query over the whole database")
	fl.IntVar(&s.shards, "sim-shards", d.Shards, "simulate: database shards (S3aSim's fragments)")
	fl.IntVar(&s.subjects, "sim-subjects", d.Subjects, "simulate: database sequences")
	fl.Float64Var(&s.speed, "sim-speed", d.Speed, "simulate: compute speed; a task's compute time is divided by it (S3aSim swept 0.1 to 25.6)")
	fl.Float64Var(&s.startup, "sim-startup", d.StartupSeconds, "simulate: seconds of compute per task at speed 1 (BLAST's start-up)")
	fl.Float64Var(&s.byteSeconds, "sim-byte-seconds", d.ByteSeconds, "simulate: seconds of compute per byte of result at speed 1")
	fl.Int64Var(&s.minResult, "sim-min-result", d.MinResultBytes, "simulate: smallest result size of a hit, in bytes")
	fl.StringVar(&s.spend, "sim-spend", "sleep", "simulate: how a task spends its compute time: sleep (no CPU: many ranks on few cores) or busy (spin a CPU)")
}

// checkBackend refuses flag combinations that cannot mean what they say.
// It runs before a campaign's plan fills the search flags, so it sees only
// what the user gave.
func checkBackend(f *flags) error {
	switch f.backend {
	case "blast":
		for _, name := range simFlagNames {
			if f.changed(name) {
				return fmt.Errorf("--%s is only used with --backend simulate", name)
			}
		}
		return nil
	case "simulate":
	default:
		return fmt.Errorf("--backend %q: unknown (want %s)", f.backend, strings.Join(backends, ", "))
	}
	for _, name := range []string{"database", "blast-option", "cache-dir", "cache-bytes"} {
		if f.changed(name) {
			return fmt.Errorf("--%s cannot be used with --backend simulate: no database is read and no BLAST runs (the model is set by the --sim-* flags)", name)
		}
	}
	s := &f.sim
	switch {
	case f.changed("sim-queries") && s.queries < 1:
		return fmt.Errorf("--sim-queries %d: want at least 1", s.queries)
	case s.queries > 0 && f.queries != "":
		return fmt.Errorf("--sim-queries and --queries: give one (generated or read queries)")
	case s.queries > 0 && f.campaign != "":
		return fmt.Errorf("--sim-queries cannot be used with --campaign: the plan names the queries")
	case s.queries == 0 && f.queries == "" && f.campaign == "":
		return fmt.Errorf("--backend simulate needs --queries FILE or --sim-queries N")
	case !(s.speed > 0) || math.IsInf(s.speed, 0):
		return fmt.Errorf("--sim-speed %v: want a finite number > 0", s.speed)
	case s.shards < 1:
		return fmt.Errorf("--sim-shards %d: want at least 1", s.shards)
	case s.subjects < s.shards:
		return fmt.Errorf("--sim-subjects %d: want at least one per shard (--sim-shards %d)", s.subjects, s.shards)
	case !(s.startup >= 0) || math.IsInf(s.startup, 0):
		return fmt.Errorf("--sim-startup %v: want a finite number >= 0", s.startup)
	case !(s.byteSeconds >= 0) || math.IsInf(s.byteSeconds, 0):
		return fmt.Errorf("--sim-byte-seconds %v: want a finite number >= 0", s.byteSeconds)
	case s.minResult < 0:
		return fmt.Errorf("--sim-min-result %d: want at least 0", s.minResult)
	case s.querySizes.Min() < 1:
		return fmt.Errorf("--sim-query-sizes %s: lengths must be at least 1", s.querySizes.String())
	case s.subjectSizes.Min() < 1:
		return fmt.Errorf("--sim-subject-sizes %s: lengths must be at least 1", s.subjectSizes.String())
	}
	if _, err := simulate.ParseSpend(s.spend); err != nil {
		return fmt.Errorf("--sim-spend: %w", err)
	}
	if f.search.Program == "" {
		// The model's hits are blastn's (nucleotide scoring).
		f.search.Program = "blastn"
	}
	return nil
}

// simulation builds the simulate backend's model from the flags (after
// checkBackend).
func simulation(f *flags) (*engine.Simulation, error) {
	if f.backend != "simulate" {
		return nil, nil
	}
	s := &f.sim
	c := simulate.DefaultConfig()
	c.Seed, c.QueryCount, c.QuerySizes, c.SubjectSizes, c.Results = s.seed, s.queries, s.querySizes, s.subjectSizes, s.results
	c.Shards, c.Subjects, c.Speed = s.shards, s.subjects, s.speed
	c.StartupSeconds, c.ByteSeconds, c.MinResultBytes = s.startup, s.byteSeconds, s.minResult
	m, err := simulate.New(c)
	if err != nil {
		return nil, fmt.Errorf("--backend simulate: %w", err)
	}
	spend, err := simulate.ParseSpend(s.spend)
	if err != nil {
		return nil, fmt.Errorf("--sim-spend: %w", err)
	}
	return &engine.Simulation{Model: m, Spend: spend, Generate: s.queries > 0}, nil
}
