// Package simulate stands in for BLAST with S3aSim's model (Ching et al.,
// "Exploring I/O Strategies for Parallel Sequence-Search Tools with
// S3aSim", papers/001_*), so schedulers and output strategies can be
// measured with many ranks on few cores (docs/engine.md, "Simulate backend").
//
// From a seed and three box histograms (query lengths, database sequence
// lengths, results per query) it generates a query set and a sharded
// database description, and for a task (a block of queries against a group
// of shards) it returns:
//
//   - the task's compute time, S3aSim's "constant startup cost + linear
//     time based on the size of the result", divided by the compute speed:
//     (Startup + ByteSeconds × Σ result bytes) / Speed, where one hit's
//     result size is uniform in [MinResultBytes, 3 × max(query length,
//     subject length)] (S3aSim §3: the pairwise text holds the query, the
//     subject and the line between them);
//   - the task's hits as outfmt-6 lines, rendered as BLAST+ 2.12 prints them
//     and parsed with blast.Parse, so the engine's merge orders, cuts and
//     writes them exactly as it does real BLAST output.
//
// Determinism: the hits of query q in shard s come from a PRNG keyed by
// (seed, q, s) alone, the number of hits of q in each shard from one keyed
// by (seed, q), and the database from one keyed by the seed. A task's lines
// are those hits in BLAST's order (the merge's order), so any grouping of
// queries into blocks and shards into groups, and so any number of ranks,
// merges to the same output for one seed.
//
// Defaults and where they come from are on DefaultConfig.
package simulate
