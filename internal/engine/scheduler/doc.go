// Package scheduler decides which queries run where.
//
// Scheduler is the engine's dynamic scheduling: Algorithm 1 of the Blue
// Gene/P mpiBLAST paper (papers/000_*), handing a free worker the next
// (query block, shard group) task, cached shard groups first.
//
// LengthSplit and WeightSplit are the static splits that paper compares it
// with (§V.C): the queries are divided once, before any search, among G
// worker groups, by total letters (LengthSplit, as Rangwala et al.'s BLAST
// for Blue Gene/L) or by letters plus a weight per query (WeightSplit, as
// ScalaBLAST). GroupTimes and DynamicTimes turn per-query costs into group
// times, so benchmarks can set the three side by side as the paper's
// Fig. 4 does (maximum, mean and minimum group time).
package scheduler
