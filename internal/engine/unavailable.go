package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// storeUnavailable marks an error a worker reported as the object store's
// being out of reach (its error crosses MPI as text).
type storeUnavailable struct{ error }

func (e storeUnavailable) Unwrap() error { return e.error }

// isStoreUnavailable: the unit failed because the object store could not
// be reached (down, restarting, 5xx) or lost a part it had acknowledged
// (InvalidPart at completion: the parts' ETags are the store's own
// answers), not because of its chunk.
func isStoreUnavailable(cause error, f *failedMsg) bool {
	var su storeUnavailable
	return errors.As(cause, &su) || objstore.Unavailable(cause) || objstore.ErrorCode(cause) == "InvalidPart" || (f != nil && f.Unavailable)
}

// loseTouch drops a unit the object store's outage broke, as a partition
// that lost touch with the store: no failure goes on record (an outage
// would otherwise use up the chunk's attempts and, repeated, split it down
// to failed queries); the lease is given back if the store answers again,
// else it expires. The attempt ends abandoned, whose budget is larger.
func (m *master) loseTouch(ctx context.Context, u *unit, cause error) {
	m.cfg.Log.Error(cause, "chunk dropped: the object store is unavailable; the chunk will be redone",
		"queries", fmt.Sprintf("%d-%d", u.first, u.end), "attempt", u.lease.Attempt)
	m.abandon(ctx, u, cause)
	m.leasing.do(func() func() error {
		_ = m.ledgerOp("release", func() error { return u.lease.Release(ctx) })
		return nil
	})
	m.retry = time.Time{}
}
