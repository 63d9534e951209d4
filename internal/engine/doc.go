// Package engine is the program inside a partition: rank 0 is the master
// (Algorithm 1 scheduling, per-query merge, write planning), the other
// ranks are workers (shard cache, BLAST+, and the writes the output
// strategy gives them). Ranks talk only through a transport.Transport, so
// the same code runs over MPI and in one process.
package engine
