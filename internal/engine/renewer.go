package engine

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/go-logr/logr"

	"github.com/blastfleet/blastfleet/internal/storage/ledger"
)

// renewer keeps a partition's leases alive on its own goroutine, so
// neither the master's loop nor a slow commit or assembly in the storage
// lane can let a live chunk's lease lapse.
type renewer struct {
	mu     sync.Mutex
	leases map[*ledger.Lease]bool
	op     func(op string, f func() error) error // the master's ledgerOp
	log    logr.Logger
	quit   chan struct{}
	ended  chan struct{}
}

func newRenewer(ctx context.Context, every time.Duration, op func(string, func() error) error, log logr.Logger) *renewer {
	r := &renewer{leases: map[*ledger.Lease]bool{}, op: op, log: log, quit: make(chan struct{}), ended: make(chan struct{})}
	go r.run(ctx, every)
	return r
}

func (r *renewer) hold(l *ledger.Lease) {
	r.mu.Lock()
	r.leases[l] = true
	r.mu.Unlock()
}

// drop stops renewing l: its chunk is being committed, failed or given up.
func (r *renewer) drop(l *ledger.Lease) {
	r.mu.Lock()
	delete(r.leases, l)
	r.mu.Unlock()
}

func (r *renewer) stop() {
	select {
	case <-r.quit:
	default:
		close(r.quit)
	}
	<-r.ended
}

func (r *renewer) run(ctx context.Context, every time.Duration) {
	defer close(r.ended)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.quit:
			return
		case <-t.C:
		}
		r.mu.Lock()
		leases := make([]*ledger.Lease, 0, len(r.leases))
		for l := range r.leases {
			leases = append(leases, l)
		}
		r.mu.Unlock()
		for _, l := range leases {
			if l.Released() {
				// Committed, failed or released meanwhile: no news.
				r.drop(l)
				continue
			}
			err := r.op("renew", func() error { return l.Renew(ctx) })
			if err == nil || ctx.Err() != nil || errors.Is(err, ledger.ErrReleased) {
				continue
			}
			if errors.Is(err, ledger.ErrLeaseLost) {
				// Taken over: say so once. The commit marker still
				// decides who wins, so the chunk's work goes on.
				r.drop(l)
			}
			r.log.Error(err, "renewing lease", "queries", l.Range.String())
		}
	}
}
