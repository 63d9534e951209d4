// Package engine is the program inside a partition: rank 0 is the master
// (Algorithm 1 scheduling, per-query merge, write planning), the other
// ranks are workers (shard cache, BLAST+, and the writes the output
// strategy gives them). Ranks talk only through a transport.Transport, so
// the same code runs over MPI and in one process. Tasks reach workers by
// Algorithm 1 or by a static split (Schedule), and a task is searched by
// BLAST+ or, with Config.Sim, by S3aSim's model (simulation.go).
package engine
