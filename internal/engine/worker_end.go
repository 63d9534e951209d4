package engine

import (
	"context"
)

// stop ends the worker: a running task is cancelled, and the summary goes
// to the master, which waits for it before finishing the output.
func (w *worker) stop(s *stopMsg) error {
	if w.cancel != nil {
		w.cancel()
		<-w.results
		w.cancel = nil
	}
	if w.cache != nil {
		w.syncCacheMetrics()
		st := w.cacheAt
		w.sum.CacheHits, w.sum.CacheMisses, w.sum.BytesFetched = st.Hits, st.Misses, st.BytesFetched
	}
	w.clock.finish(&w.sum)
	return w.tr.Send(0, encode(&envelope{Summary: &w.sum}))
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
				_ = w.stop(e.Stop)
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
}
