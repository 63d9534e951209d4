package enginemetrics

import "time"

// The recorders below accept a nil *Rank (metrics off) and ignore what
// the rank's role does not export.

// Phase adds seconds to one of S3aSim's phases.
func (r *Rank) Phase(phase string, seconds float64) {
	if r == nil || seconds <= 0 {
		return
	}
	r.phaseSeconds.WithLabelValues(phase).Add(seconds)
}

// Task counts a finished task and its BLAST time.
func (r *Rank) Task(program string, seconds float64) {
	if r == nil || r.tasks == nil {
		return
	}
	r.tasks.WithLabelValues(program).Inc()
	r.blastSeconds.WithLabelValues(program).Observe(seconds)
}

// QueueWait observes a worker's wait for its next task.
func (r *Rank) QueueWait(seconds float64) {
	if r == nil || r.queueWait == nil {
		return
	}
	r.queueWait.Observe(seconds)
}

// Cache adds shard cache hits, misses and bytes fetched (deltas).
func (r *Rank) Cache(hits, misses, bytes int64) {
	if r == nil || r.cacheHits == nil {
		return
	}
	r.cacheHits.Add(float64(max(hits, 0)))
	r.cacheMisses.Add(float64(max(misses, 0)))
	r.fetchBytes.Add(float64(max(bytes, 0)))
}

// Written adds bytes of output written under strategy.
func (r *Rank) Written(strategy string, bytes int64) {
	if r == nil || bytes <= 0 {
		return
	}
	r.writtenBytes.WithLabelValues(strategy).Add(float64(bytes))
}

// Queries counts queries (and their letters) whose output is written.
func (r *Rank) Queries(n int, letters int64) {
	if r == nil || r.queries == nil || n <= 0 {
		return
	}
	r.queries.Add(float64(n))
	r.letters.Add(float64(max(letters, 0)))
}

// Chunk observes a campaign chunk's lease-to-commit time.
func (r *Rank) Chunk(seconds float64) {
	if r == nil || r.chunkSeconds == nil {
		return
	}
	r.chunkSeconds.Observe(seconds)
}

// Ledger counts one ledger operation and its time; err marks it failed.
func (r *Rank) Ledger(op string, seconds float64, err error) {
	if r == nil || r.ledgerCalls == nil {
		return
	}
	r.ledgerCalls.WithLabelValues(op).Inc()
	r.ledgerSeconds.WithLabelValues(op).Observe(seconds)
	if err != nil {
		r.ledgerErrors.WithLabelValues(op).Inc()
	}
}

// Store adds one store's shard reads (deltas): bytes, failed reads, skips
// and seconds busy.
func (r *Rank) Store(store string, bytes, errors, skips int64, busy time.Duration) {
	if r == nil || r.storeBytes == nil {
		return
	}
	r.storeBytes.WithLabelValues(store).Add(float64(max(bytes, 0)))
	r.storeErrors.WithLabelValues(store).Add(float64(max(errors, 0)))
	r.storeSkips.WithLabelValues(store).Add(float64(max(skips, 0)))
	r.storeBusy.WithLabelValues(store).Add(max(busy.Seconds(), 0))
}
