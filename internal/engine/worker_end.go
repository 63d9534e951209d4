package engine

import (
	"context"

	"github.com/blastfleet/blastfleet/internal/objstore"
	"github.com/blastfleet/blastfleet/internal/output"
)

// write writes one block to its unit's target. Blocks are megabytes, so
// opening the target per block costs little and holds nothing open.
func (w *worker) write(ctx context.Context, order *writeMsg, buf []byte) (objstore.Part, error) {
	wr, err := output.OpenWriter(ctx, order.Target)
	if err != nil {
		return objstore.Part{}, err
	}
	defer wr.Close()
	return wr.Write(ctx, order.Offset, order.Part, buf)
}

// stop ends the worker: a running task is cancelled, and the summary goes
// to the master, which waits for it before finishing the output.
func (w *worker) stop(s *stopMsg) error {
	if w.cancel != nil {
		w.cancel()
		<-w.results
		w.cancel = nil
	}
	if w.cache != nil {
		st := w.cache.Stats()
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
