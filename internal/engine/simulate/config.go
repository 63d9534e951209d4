package simulate

import (
	"errors"
	"fmt"
	"math"
)

// Config is everything the model's output depends on. Two runs with equal
// Configs (and equal queries) produce the same hits and compute times.
type Config struct {
	Seed uint64

	// QueryCount and QuerySizes shape a generated query set (Queries).
	QueryCount int
	QuerySizes Histogram

	// Subjects database sequences with lengths from SubjectSizes, dealt
	// round-robin into Shards shards.
	Subjects     int
	SubjectSizes Histogram
	Shards       int

	// Results is the number of hits (HSPs, output lines) per query over the
	// whole database, before any cut-off.
	Results Histogram

	// MinResultBytes is S3aSim's minimum result size: a hit's result size
	// is uniform in [MinResultBytes, max(MinResultBytes, 3×max(qlen, slen))].
	MinResultBytes int64

	// StartupSeconds is the constant cost of one task (one BLAST call),
	// ByteSeconds the cost of one byte of result; both at Speed 1.
	StartupSeconds float64
	ByteSeconds    float64

	// Speed is S3aSim's compute speed: a task's whole compute time is
	// divided by it, start-up included (the paper does not say which part
	// it scales; faster processors or search hardware speed up both).
	Speed float64
}

// NTSizes is a box histogram of nt-like sequence lengths, after S3aSim
// §3.3, which took both query and database lengths from NCBI's nt: minimum
// 6, mean 4401 (this one's mean: 4405.75). The paper gives no buckets; these
// are ours, and the tail stops at 225,000 letters where nt's reached 43
// MB: one such sequence would make a single task outlast any run.
const NTSizes = "6-500:0.25,500-1500:0.30,1500-5000:0.29,5000-20000:0.15,20000-225000:0.01"

// S3aSimResults is S3aSim §3.3's "result count from 1000 to 2000 per query
// (over the entire database)".
const S3aSimResults = "1000-2000:1"

// DefaultConfig is S3aSim §3.3's setup where the paper gives one, else ours:
//
//   - 20 queries and 128 shards (fragments), nt-like lengths, 1000-2000
//     results per query: S3aSim §3.3;
//   - 100,000 database sequences: ours (the paper does not say; only the
//     database's letters enter the E-values);
//   - MinResultBytes 200: ours, about the header lines of one pairwise hit
//     (S3aSim has the parameter but the paper gives no value);
//   - StartupSeconds 0.065: a BLAST+ 2.12 call's fixed cost measured here,
//     0.06-0.07 s (docs/benchmarks.md);
//   - ByteSeconds 1.2e-6: blastp with one thread took 32.62 s on the
//     plast-example workload (docs/benchmarks.md) and its 15,549 output
//     lines have an expected S3aSim result size of 27.4 MB in all;
//   - Speed 1: S3aSim's base compute speed.
func DefaultConfig() Config {
	return Config{
		Seed:           1,
		QueryCount:     20,
		QuerySizes:     MustHistogram(NTSizes),
		Subjects:       100_000,
		SubjectSizes:   MustHistogram(NTSizes),
		Shards:         128,
		Results:        MustHistogram(S3aSimResults),
		MinResultBytes: 200,
		StartupSeconds: 0.065,
		ByteSeconds:    1.2e-6,
		Speed:          1,
	}
}

// Validate reports every field that cannot work.
func (c *Config) Validate() error {
	var errs []error
	check := func(name string, h Histogram, minValue int64) {
		if err := h.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		} else if h.Min() < minValue {
			errs = append(errs, fmt.Errorf("%s: smallest value %d, want at least %d", name, h.Min(), minValue))
		}
	}
	check("query sizes", c.QuerySizes, 1)
	check("subject sizes", c.SubjectSizes, 1)
	check("results per query", c.Results, 0)
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	bad := func(cond bool, format string, args ...any) {
		if cond {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	bad(c.QueryCount < 0, "query count %d is negative", c.QueryCount)
	bad(c.Shards < 1, "shards %d: want at least 1", c.Shards)
	bad(c.Subjects < c.Shards, "subjects %d: want at least one per shard (%d shards)", c.Subjects, c.Shards)
	bad(c.MinResultBytes < 0 || c.MinResultBytes > maxValue, "minimum result bytes %d: want 0 to %d", c.MinResultBytes, int64(maxValue))
	bad(!(c.StartupSeconds >= 0) || !finite(c.StartupSeconds), "start-up seconds %v: want a finite value >= 0", c.StartupSeconds)
	bad(!(c.ByteSeconds >= 0) || !finite(c.ByteSeconds), "seconds per result byte %v: want a finite value >= 0", c.ByteSeconds)
	bad(!(c.Speed > 0) || !finite(c.Speed), "compute speed %v: want a finite value > 0", c.Speed)
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("simulate: %w", err)
	}
	return nil
}

// clone copies the histograms' buckets, which are shared by assignment.
func (c Config) clone() Config {
	c.QuerySizes = c.QuerySizes.clone()
	c.SubjectSizes = c.SubjectSizes.clone()
	c.Results = c.Results.clone()
	return c
}
