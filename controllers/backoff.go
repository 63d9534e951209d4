package controllers

import (
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/blastfleet/blastfleet/internal/shared/jitter"
)

// A campaign whose store keeps failing is polled at most maxBackoffFactor
// poll intervals apart, and never more than maxStoreBackoff: it is
// retried within minutes of the store's return.
const (
	maxBackoffFactor = 16
	maxStoreBackoff  = 5 * time.Minute
)

// storeBackoff counts, per campaign, the reconciles in a row that could
// not reach its store, so a tenant's store that is down is polled less
// and less often (the poll interval doubled per failure, up to its limit,
// spread by jitter so campaigns of one store that went
// down together do not come back in lockstep), and others' campaigns
// keep the workers.
type storeBackoff struct{ failures sync.Map } // campaign UID -> *atomic.Int32

// next is how long until the campaign's next poll after another failure.
func (b *storeBackoff) next(uid types.UID, poll time.Duration) time.Duration {
	v, _ := b.failures.LoadOrStore(uid, new(atomic.Int32))
	n := v.(*atomic.Int32).Add(1)
	return jitter.Spread(doubled(poll, min(poll*maxBackoffFactor, maxStoreBackoff), int(n)))
}

// doubled is first doubled for each failure in a row after the first of
// n, up to limit.
func doubled(first, limit time.Duration, n int) time.Duration {
	d := first
	for i := 1; i < n && d < limit; i++ {
		d *= 2
	}
	return min(d, limit)
}

// reset forgets the campaign's failures: its store answered, or it is gone.
func (b *storeBackoff) reset(uid types.UID) { b.failures.Delete(uid) }
