package engine

import (
	"context"
	"sync"
	"time"

	"github.com/go-logr/logr"

	"github.com/blastfleet/blastfleet/internal/shared/jitter"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
)

// Pace of a partition's summary.json writes: within summaryLeast of a
// chunk's end, and every summaryEvery meanwhile unless another
// partition's is that recent, so a poller (the operator) finds it fresh
// while any partition runs and reads one small object instead of listing
// every chunk. Each write costs one listing of the chunks, here, where the
// work is.
const (
	summaryLeast = 5 * time.Second
	summaryEvery = 30 * time.Second
)

// summarizer writes the campaign's summary on its own goroutine, so the
// listing it takes never holds the master's loop.
type summarizer struct {
	l      *ledger.Ledger
	writer string
	op     func(op string, f func() error) error // the master's ledgerOp
	log    logr.Logger

	mu    sync.Mutex
	dirty bool
	quit  chan struct{}
	ended chan struct{}
}

func newSummarizer(ctx context.Context, l *ledger.Ledger, writer string, op func(string, func() error) error, log logr.Logger) *summarizer {
	s := &summarizer{l: l, writer: writer, op: op, log: log, quit: make(chan struct{}), ended: make(chan struct{})}
	go s.run(ctx)
	return s
}

// changed notes that a chunk ended: the summary is written soon.
func (s *summarizer) changed() {
	s.mu.Lock()
	s.dirty = true
	s.mu.Unlock()
}

func (s *summarizer) stop() {
	select {
	case <-s.quit:
	default:
		close(s.quit)
	}
	<-s.ended
}

func (s *summarizer) run(ctx context.Context) {
	defer close(s.ended)
	t := time.NewTicker(jitter.Spread(summaryLeast))
	defer t.Stop()
	var last time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.quit:
			return
		case <-t.C:
		}
		s.mu.Lock()
		dirty := s.dirty
		s.dirty = false
		s.mu.Unlock()
		if !dirty && time.Since(last) < summaryEvery {
			continue
		}
		last = time.Now()
		if !dirty && s.fresh(ctx) {
			continue // another partition's listing is recent: ours would say the same
		}
		// A summary not written costs pollers a listing, nothing more.
		if _, err := s.write(ctx); err != nil && ctx.Err() == nil {
			s.log.V(1).Info("writing the campaign summary; will retry", "error", err.Error())
		}
	}
}

// fresh says whether another writer's summary is recent enough that a
// periodic write, with no chunk ended here since, would add nothing.
func (s *summarizer) fresh(ctx context.Context) bool {
	var ok bool
	err := s.op("summary", func() (err error) {
		ok, err = s.l.SummaryFresh(ctx, summaryEvery)
		return err
	})
	return err == nil && ok
}

// write lists the chunks and stores their status in summary.json.
func (s *summarizer) write(ctx context.Context) (st *ledger.Status, err error) {
	err = s.op("summary", func() error {
		st, err = s.l.WriteSummary(ctx, s.writer)
		return err
	})
	return st, err
}
