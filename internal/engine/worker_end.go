package engine

import (
	"context"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/replica"
)

// stop ends the worker: a running task is cancelled, and the summary goes
// to the master, which waits for it before finishing the output; told
// says the worker was told to stop (SIGTERM), not asked by the master.
func (w *worker) stop(told bool) error {
	if w.cancel != nil {
		w.cancel()
		<-w.results
		w.cancel = nil
	}
	if w.cache != nil {
		w.syncCacheMetrics()
		st := w.cacheAt
		w.sum.CacheHits, w.sum.CacheMisses, w.sum.BytesFetched = st.Hits, st.Misses, st.BytesFetched
		w.sum.Stores = storeReads(w.reads)
	}
	w.clock.finish(&w.sum)
	return w.tr.Send(0, encode(&envelope{Summary: &w.sum, Stopped: told}))
}

// waitStop serves nothing but waits for the master's stop after a setup
// failure, so the master can collect every rank's summary.
func (w *worker) waitStop(ctx context.Context, cause error) error {
	for {
		select {
		case <-ctx.Done():
			return cause
		case msg, ok := <-w.tr.Recv():
			if !ok {
				return cause
			}
			if e, err := decode(msg.Data); err == nil && e.Stop != nil {
				_ = w.stop(false)
				return cause
			}
		}
	}
}

// syncCacheMetrics sends /metrics what the shard cache counted since the
// last call.
func (w *worker) syncCacheMetrics() {
	if w.cache == nil {
		return
	}
	st := w.cache.Stats()
	w.metrics.Cache(st.Hits-w.cacheAt.Hits, st.Misses-w.cacheAt.Misses, st.BytesFetched-w.cacheAt.BytesFetched)
	w.cacheAt = st
	if w.reads != nil {
		now := w.reads.Stats()
		for i, r := range now {
			var was replica.Stats
			if i < len(w.readsAt) {
				was = w.readsAt[i]
			}
			w.metrics.Store(r.Name, r.Bytes-was.Bytes, r.Errors-was.Errors, int64(r.SkipCount-was.SkipCount), r.Busy-was.Busy)
		}
		w.readsAt = now
	}
}

// stopped ends a worker told to stop (SIGTERM): its task is cancelled and
// its summary sent, then it stays until the master has given its chunks
// up (the master's stop, within stopSummaryWait). Leaving first would end
// the run under mpirun: a rank exiting non-zero makes mpirun kill the
// others, the master among them, before it could release its leases.
func (w *worker) stopped(cause error) error {
	_ = w.stop(true)
	t := time.NewTimer(stopSummaryWait)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			return cause
		case msg, ok := <-w.tr.Recv():
			if !ok {
				return cause
			}
			if e, err := decode(msg.Data); err == nil && e.Stop != nil {
				return cause
			}
		}
	}
}
