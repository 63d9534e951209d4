package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// errLost means another partition got there first; look further.
var errLost = errors.New("lost the race")

// errExhausted means the chunk has used its attempts.
var errExhausted = errors.New("attempts exhausted")

// Acquire leases the first leaf chunk, in query order, that is undecided
// and not held by an unexpired lease, and counts the attempt before
// returning. Chunks whose attempts ran out are split (or, single queries,
// failed) on the way. It returns ErrNoChunk when every chunk is decided,
// an *AllLeasedError (ErrAllLeased) when the rest are held by others, and
// an *InvalidSearchError (ErrInvalidSearch) once BLAST+ refused the search.
func (l *Ledger) Acquire(ctx context.Context, holder string) (*Lease, error) {
	for {
		sc, err := l.scan(ctx)
		if err != nil {
			return nil, err
		}
		if sc.invalid != nil {
			return nil, &InvalidSearchError{Reason: *sc.invalid}
		}
		var until time.Time
		open, rescan := false, false
		for i, lf := range sc.leaves {
			if lf.state != leafOpen {
				continue
			}
			open = true
			ls, err := l.tryLeaf(ctx, lf, holder, &until)
			switch {
			case err == nil && ls != nil:
				ls.Later = openLeaves(sc.leaves[i+1:])
				return ls, nil
			case errors.Is(err, errExhausted):
				rescan = true // decided: the split's children are new leaves
			case err != nil && !errors.Is(err, errLost):
				return nil, err
			}
			if rescan {
				break
			}
		}
		if rescan {
			continue
		}
		if !open {
			return nil, ErrNoChunk
		}
		return nil, &AllLeasedError{Until: until}
	}
}

func openLeaves(lfs []leaf) int {
	n := 0
	for _, lf := range lfs {
		if lf.state == leafOpen {
			n++
		}
	}
	return n
}

// tryLeaf leases lf if it can: nil, nil means it is held by a live lease
// (until then advanced to its expiry).
func (l *Ledger) tryLeaf(ctx context.Context, lf leaf, holder string, until *time.Time) (*Lease, error) {
	cur, leaseETag, err := l.readLease(ctx, lf)
	if err != nil {
		return nil, err
	}
	if cur != nil && !cur.Released {
		if exp := l.expiry(lf.r.dir()+leaseName, leaseETag); l.now().Before(exp) {
			if until.IsZero() || exp.Before(*until) {
				*until = exp
			}
			return nil, nil
		}
	}
	// Not listed means none yet; if one appeared since the List, the
	// attempt count's create fails and re-reads it.
	var att attemptsRecord
	var attETag string
	if in, ok := lf.objs[attemptsName]; ok {
		if att, attETag, err = l.readAttempts(ctx, lf.r, in.ETag); err != nil {
			return nil, err
		}
	}
	// A stop its partition had time to write only into the lease: the
	// count below writes it into attempts.json with our attempt.
	att = att.withLeaseStop(cur)
	if att.spent(l.policy()) {
		return nil, l.settle(ctx, lf, att)
	}
	ls, err := l.take(ctx, lf, holder, leaseETag)
	if err != nil {
		return nil, err
	}
	n, err := l.countAttempt(ctx, lf.r, ls, att, attETag)
	if err != nil {
		releaseAnyway(ctx, ls)
		if errors.Is(err, errExhausted) {
			if att, _, err = l.readAttempts(ctx, lf.r, ""); err != nil {
				return nil, err
			}
			return nil, l.settle(ctx, lf, att)
		}
		return nil, err
	}
	ls.Attempt = n
	l.abortAbandoned(ctx, lf.r, att)
	return ls, nil
}

// abortAbandoned aborts the unfinished result uploads of the chunk's
// abandoned attempts: their holders died mid-upload, and failed or
// stopped attempts abort their own. Best effort, one listing each: a
// leftover costs only storage, which the bucket's lifecycle rule reclaims.
func (l *Ledger) abortAbandoned(ctx context.Context, r Range, att attemptsRecord) {
	for _, a := range att.Attempts {
		if a.Failure == nil && a.Stop == nil {
			_, _ = l.st.AbortUploads(ctx, resultKey(r, a.Holder, a.Number))
		}
	}
}

// expiry is when, on this handle's clock, the version etag of the lease
// object key may be taken over: lease + skew after this handle first saw
// it. A live holder renews well before that, which changes the version
// and starts the wait again; so no clock but ours is trusted, and a
// machine whose clock runs hours ahead cannot take live leases.
func (l *Ledger) expiry(key, etag string) time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	o, ok := l.seen[key]
	if !ok || o.etag != etag {
		o = observation{etag: etag, at: l.now()}
		l.seen[key] = o
	}
	return o.at.Add(l.policy().Lease() + l.policy().Skew())
}

// wrote notes a lease version this handle wrote at (its own clock).
func (l *Ledger) wrote(key, etag string, at time.Time) {
	l.mu.Lock()
	l.seen[key] = observation{etag: etag, at: at}
	l.mu.Unlock()
}

// live is whether a lease looks held, for status only: by the holder's
// clock, trusted up to the skew. Takeover never relies on it (expiry).
func (l *Ledger) live(rec *leaseRecord) bool {
	return !rec.Released && !l.now().After(rec.ExpiresAt.Add(l.policy().Skew()))
}

// readLease returns the current lease record (nil if none or unreadable,
// which a new lease may replace) and its ETag ("" if absent).
func (l *Ledger) readLease(ctx context.Context, lf leaf) (*leaseRecord, string, error) {
	info, ok := lf.objs[leaseName]
	if !ok {
		return nil, "", nil
	}
	data, etag, err := l.readSmall(ctx, lf.r.dir()+leaseName, info.ETag)
	if errors.Is(err, objstore.ErrNotExist) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("reading lease of chunk %s: %w", lf.r, err)
	}
	var rec leaseRecord
	if json.Unmarshal(data, &rec) != nil {
		return nil, etag, nil // corrupt: takeable by CAS on its ETag
	}
	return &rec, etag, nil
}

func (l *Ledger) readAttempts(ctx context.Context, r Range, listedETag string) (attemptsRecord, string, error) {
	var rec attemptsRecord
	data, etag, err := l.readSmall(ctx, r.dir()+attemptsName, listedETag)
	if errors.Is(err, objstore.ErrNotExist) {
		return rec, "", nil
	}
	if err != nil {
		return rec, "", fmt.Errorf("reading attempts of chunk %s: %w", r, err)
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		return rec, "", fmt.Errorf("attempts of chunk %s %s: %w", r, l.st.URL(r.dir()+attemptsName), err)
	}
	return rec, etag, nil
}

// putCAS writes key if absent (etag "") or if still at etag; a lost
// precondition whose bytes are ours anyway (a retried request) is a win.
func (l *Ledger) putCAS(ctx context.Context, key string, data []byte, etag string) (string, error) {
	var newETag string
	var err error
	if etag == "" {
		newETag, err = l.st.PutIfAbsent(ctx, key, data)
	} else {
		newETag, err = l.st.PutIfMatch(ctx, key, data, etag)
	}
	if errors.Is(err, objstore.ErrPrecondition) {
		if e, won := l.casWon(ctx, key, data); won {
			return e, nil
		}
	}
	if err != nil {
		return "", err
	}
	l.remember(key, newETag, data)
	return newETag, nil
}

// take writes our lease: a create, or a CAS over an expired, released or
// corrupt one. It then checks the chunk was not decided meanwhile.
func (l *Ledger) take(ctx context.Context, lf leaf, holder, oldETag string) (*Lease, error) {
	ls, err := l.takeLease(ctx, lf.r.dir()+leaseName, "chunk "+lf.r.String(), holder, oldETag)
	if errors.Is(err, errLost) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("leasing chunk %s: %w", lf.r, err)
	}
	ls.Range = lf.r
	// The scan may predate a commit made just before the old lease was
	// released; one HEAD saves redoing a finished chunk.
	info, err := l.st.Stat(ctx, lf.r.dir()+commitName)
	if (err == nil && info.ETag != lf.decisionETag) || (errors.Is(err, objstore.ErrNotExist) && lf.decisionETag != "") {
		releaseAnyway(ctx, ls)
		return nil, errLost
	}
	return ls, nil
}

// takeLease writes a new lease object at key for holder: a create
// (oldETag "") or a CAS over the version oldETag. Another write first
// gives errLost.
func (l *Ledger) takeLease(ctx context.Context, key, what, holder, oldETag string) (*Lease, error) {
	now := l.now().UTC()
	rec := leaseRecord{Holder: holder, Site: l.site, Token: newToken(), AcquiredAt: now, RenewedAt: now, ExpiresAt: now.Add(l.policy().Lease())}
	data := encode(rec)
	etag, err := l.putCAS(ctx, key, data, oldETag)
	if errors.Is(err, objstore.ErrPrecondition) {
		return nil, errLost
	}
	if err != nil {
		if ctx.Err() != nil {
			// Cancelled (a stop) with the write in flight: the store may
			// have taken it. Ours, it is given back rather than left held.
			rctx, cancel := pastStop(ctx)
			defer cancel()
			if etag, won := l.casWon(rctx, key, data); won {
				releaseAnyway(ctx, &Lease{l: l, key: key, what: what, Holder: holder, rec: rec, etag: etag})
			}
		}
		return nil, err
	}
	l.wrote(key, etag, now)
	return &Lease{l: l, key: key, what: what, Holder: holder, rec: rec, etag: etag}, nil
}

// countAttempt appends our attempt to attempts.json by CAS, starting from
// the record the scan read, and returns its number.
func (l *Ledger) countAttempt(ctx context.Context, r Range, ls *Lease, att attemptsRecord, etag string) (int, error) {
	key := r.dir() + attemptsName
	for {
		if att.spent(l.policy()) {
			return 0, errExhausted
		}
		n := len(att.Attempts) + 1
		next := attemptsRecord{Attempts: append(append([]attempt(nil), att.Attempts...),
			attempt{Number: n, Holder: ls.Holder, Site: l.site, Token: ls.rec.Token, StartedAt: l.now().UTC()})}
		_, err := l.putCAS(ctx, key, encode(next), etag)
		if err == nil {
			return n, nil
		}
		if !errors.Is(err, objstore.ErrPrecondition) {
			return 0, fmt.Errorf("counting attempt on chunk %s: %w", r, err)
		}
		if att, etag, err = l.readAttempts(ctx, r, ""); err != nil {
			return 0, err
		}
	}
}

// settle decides a chunk whose attempts are spent: split in halves, or
// failed if it is a single query. The decision is commit.json, the same
// marker a commit creates, so a late commit of the chunk and its split
// can never both happen. Losing the race is fine: someone decided.
func (l *Ledger) settle(ctx context.Context, lf leaf, att attemptsRecord) error {
	f := att.lastFailure(l.policy())
	rec := outcomeRecord{Outcome: outcomeFailed, At: l.now().UTC(), Token: newToken(), Failure: &f}
	if lf.r.Len() > 1 {
		h := l.plan.halves(lf.r)
		rec.Outcome, rec.Children = outcomeSplit, h[:]
	}
	_, err := l.putCAS(ctx, lf.r.dir()+commitName, encode(rec), lf.decisionETag)
	if err != nil && !errors.Is(err, objstore.ErrPrecondition) {
		return fmt.Errorf("deciding chunk %s (%s): %w", lf.r, rec.Outcome, err)
	}
	return errExhausted
}

// releaseAnyway gives back a lease taken in vain, even when ctx was
// cancelled meanwhile (a partition told to stop in the middle of Acquire):
// left behind, it would hold the chunk for a lease's time.
func releaseAnyway(ctx context.Context, ls *Lease) {
	rctx, cancel := pastStop(ctx)
	defer cancel()
	// Told to stop: the release says so, so that an attempt count that
	// landed while we gave up on it ends stopped, not abandoned (the
	// status and the next taker fold the lease's stop into it).
	var stop *Stop
	if ctx.Err() != nil {
		stop = &Stop{At: ls.l.now().UTC(), Reason: "the partition was told to stop while it leased the chunk"}
	}
	_ = ls.release(rctx, stop)
}

// pastStop is ctx without its cancellation, bounded: for the few writes
// that must still happen once a caller was told to stop.
func pastStop(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), releaseWait)
}

// releaseWait bounds what pastStop allows.
const releaseWait = 10 * time.Second
