package ledger

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// Lease is one holder's claim on one chunk for one attempt (or, unexported,
// on the result's assembly).
type Lease struct {
	l       *Ledger
	key     string // its lease object
	what    string // what it leases, for errors: "chunk [0,2)"
	Range   Range
	Holder  string
	Attempt int // 1-based, counted in attempts.json before work starts
	// Later counts the undecided chunks after this one in query order
	// when it was leased: 0 means it is among the campaign's last, whose
	// searches should end together.
	Later int

	mu       sync.Mutex
	rec      leaseRecord
	etag     string // lease.json's ETag after our last write
	released bool
}

// ExpiresAt is when the lease lapses unless renewed (others wait a skew
// longer before taking it over).
func (ls *Lease) ExpiresAt() time.Time {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.rec.ExpiresAt
}

// Released: this holder gave the lease up (released, failed, committed)
// or learnt it was taken over.
func (ls *Lease) Released() bool {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.released
}

// Renew extends the lease by CAS on our last ETag: losing means it was
// taken over (or released) and gives ErrLeaseLost.
func (ls *Lease) Renew(ctx context.Context) error {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.released {
		return fmt.Errorf("renewing %s: %w", ls.what, ErrReleased)
	}
	now := ls.l.now().UTC()
	rec := ls.rec
	rec.RenewedAt, rec.ExpiresAt = now, now.Add(ls.l.policy().Lease())
	etag, err := ls.l.putCAS(ctx, ls.key, encode(rec), ls.etag)
	if errors.Is(err, objstore.ErrPrecondition) {
		ls.released = true
		return fmt.Errorf("renewing %s: %w", ls.what, ErrLeaseLost)
	}
	if err != nil {
		return fmt.Errorf("renewing %s: %w", ls.what, err)
	}
	ls.rec, ls.etag = rec, etag
	ls.l.wrote(ls.key, etag, now)
	return nil
}

// Release gives the chunk up by CAS-writing a released record, so a lease
// already taken over is left alone. Releasing twice is a no-op.
func (ls *Lease) Release(ctx context.Context) error { return ls.release(ctx, nil) }

// release writes the released record, with the attempt's stop if any.
func (ls *Lease) release(ctx context.Context, stop *Stop) error {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.released {
		return nil
	}
	ls.released = true
	rec := ls.rec
	rec.Released, rec.RenewedAt, rec.Stop = true, ls.l.now().UTC(), stop
	_, err := ls.l.putCAS(ctx, ls.key, encode(rec), ls.etag)
	if err != nil && !errors.Is(err, objstore.ErrPrecondition) {
		return fmt.Errorf("releasing %s: %w", ls.what, err)
	}
	return nil
}

// Fail records why this attempt failed in attempts.json and releases the
// lease. Once failures reach maxAttempts, the next Acquire splits the
// chunk (or fails its single query).
func (ls *Lease) Fail(ctx context.Context, reason FailureReason) error {
	return ls.end(ctx, "recording failure of", func(a *attempt) { a.Failure = &reason })
}

// Stop records that this attempt was given up healthy (its partition was
// told to stop) and releases the lease, so the chunk can be taken again at
// once and the attempt counts toward no limit. Call it with a context that
// outlives the one that was cancelled.
func (ls *Lease) Stop(ctx context.Context, reason string) error {
	stop := &Stop{At: ls.l.now().UTC(), Reason: reason}
	// First the one write that frees the chunk and puts the stop on
	// record (mpirun SIGKILLs a rank a second after its SIGTERM); then
	// attempts.json, which the next taker would also fold it into.
	if err := ls.release(ctx, stop); err != nil {
		return err
	}
	return ls.record(ctx, "recording stop of", func(a *attempt) {
		if a.Stop == nil {
			a.Stop = stop
		}
	})
}

// end records how this attempt ended in attempts.json, by CAS, and
// releases the lease.
func (ls *Lease) end(ctx context.Context, what string, set func(*attempt)) error {
	if err := ls.record(ctx, what, set); err != nil {
		return err
	}
	return ls.Release(ctx)
}

// record sets how this attempt ended in attempts.json, by CAS.
func (ls *Lease) record(ctx context.Context, what string, set func(*attempt)) error {
	l := ls.l
	key := ls.Range.dir() + attemptsName
	for {
		att, etag, err := l.readAttempts(ctx, ls.Range, "")
		if err != nil {
			return err
		}
		found := false
		for i := range att.Attempts {
			if att.Attempts[i].Token == ls.rec.Token {
				set(&att.Attempts[i])
				found = true
			}
		}
		if !found {
			return fmt.Errorf("%s chunk %s: attempt %d is not in %s", what, ls.Range, ls.Attempt, l.st.URL(key))
		}
		_, err = l.putCAS(ctx, key, encode(att), etag)
		if err == nil {
			break
		}
		if !errors.Is(err, objstore.ErrPrecondition) {
			return fmt.Errorf("%s chunk %s: %w", what, ls.Range, err)
		}
	}
	return nil
}
