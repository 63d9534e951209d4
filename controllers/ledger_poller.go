package controllers

import (
	"context"
	"strconv"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crevent "sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/shared/jitter"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// ledgerPoller reads the stores of running campaigns outside Reconcile
// (a manager Runnable): at each campaign's jittered interval, a bounded
// number at once, each read under a deadline. It keeps the last read of
// each, and wakes a campaign's reconcile only when the read differs from
// the one before or holds an error to act on. Reconciles then read
// memory, not the store: their latency is the API server's alone.
type ledgerPoller struct {
	// interval is each campaign's, spread by jitter; shorter in the
	// endgame (endgamePoll).
	interval time.Duration
	// workers bounds the reads at once; timeout bounds each read.
	workers int
	timeout time.Duration
	// bound readies a read's context (the operator's object size limit).
	bound func(context.Context) context.Context
	// read is one read of a campaign's store (readLedgerState).
	read func(ctx context.Context, l *ledger.Ledger, st objstore.Store) *ledgerRead
	now  func() time.Time

	// events wake reconciles (a source.Channel's).
	events chan crevent.GenericEvent
	wake   chan struct{}

	mu      sync.Mutex
	entries map[types.UID]*pollEntry
}

// pollEntry is one registered campaign, polled through the ledger
// handle it registered with; a handle opened anew (a rotated key) is a
// new entry.
type pollEntry struct {
	uid  types.UID
	key  types.NamespacedName
	l    *ledger.Ledger
	st   objstore.Store
	due  time.Time
	busy bool
	last *ledgerRead
	seq  uint64 // reads kept, naming their versions
	// wakeNext: a reconcile waits on the next read, news or not.
	wakeNext bool
	// failures counts the failed reads in a row (the reconcile's
	// included): the next is made after retryAfter, not the interval.
	failures int
	// retryTaken: a reconcile has opened the store itself since the
	// last failed read (retryOnce).
	retryTaken bool
}

func newLedgerPoller(interval time.Duration, workers int, timeout time.Duration) *ledgerPoller {
	return &ledgerPoller{
		interval: interval, workers: max(workers, 1), timeout: timeout, now: time.Now,
		bound:   func(ctx context.Context) context.Context { return ctx },
		events:  make(chan crevent.GenericEvent, 64),
		wake:    make(chan struct{}, 1),
		entries: map[types.UID]*pollEntry{},
	}
}

// register has the poller read the campaign through l (and st, its run
// records) from now on, the first time at once. Registering the handle
// already registered changes nothing.
func (p *ledgerPoller) register(uid types.UID, key types.NamespacedName, l *ledger.Ledger, st objstore.Store) {
	p.mu.Lock()
	old := p.entries[uid]
	if old != nil && old.l == l {
		p.mu.Unlock()
		return
	}
	p.entries[uid] = &pollEntry{uid: uid, key: key, l: l, st: st, due: p.now(), failures: failuresOf(old)}
	p.mu.Unlock()
	p.poke()
}

// put keeps a read the reconcile made itself (after opening the store
// anew) as the campaign's last, registering l; the next read is an
// interval later, or a failed read's backoff. A handle opened anew
// keeps the failures in a row: a reconcile that reopens the store at
// each failed poll must not start the backoff again each time.
func (p *ledgerPoller) put(uid types.UID, key types.NamespacedName, l *ledger.Ledger, st objstore.Store, rd *ledgerRead) {
	p.mu.Lock()
	e := p.entries[uid]
	if e == nil || e.l != l {
		e = &pollEntry{uid: uid, key: key, l: l, st: st, failures: failuresOf(e)}
		p.entries[uid] = e
	}
	p.keep(e, rd)
	p.schedule(e, rd)
	e.retryTaken = rd.retried
	p.mu.Unlock()
	p.poke() // its next read may be due before the loop's timer
}

// failuresOf is e's failed reads in a row; none for no entry.
func failuresOf(e *pollEntry) int {
	if e == nil {
		return 0
	}
	return e.failures
}

// retryOnce says whether a reconcile that finds the poller's last read
// of the campaign (through l) failed may open the store itself: once
// between two of the poller's reads. That one reads the credentials
// anew (a rotated key); the reconciles woken after it, until the
// poller's next read, take the failed read as the store's word and
// report it, instead of each opening the store again.
func (p *ledgerPoller) retryOnce(uid types.UID, l *ledger.Ledger) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	e := p.entries[uid]
	if e == nil || e.l != l {
		return true
	}
	if e.retryTaken {
		return false
	}
	e.retryTaken = true
	return true
}

// result is the last read of the campaign through l; nil when it is not
// registered with l or not read yet.
func (p *ledgerPoller) result(uid types.UID, l *ledger.Ledger) *ledgerRead {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e := p.entries[uid]; e != nil && e.l == l {
		return e.last
	}
	return nil
}

// refresh has the campaign read once it is after (at once if it is), and
// its reconcile woken by that read even if it finds nothing new: the
// reconcile saw something newer than the last read (a partition that
// exited).
func (p *ledgerPoller) refresh(uid types.UID, after time.Time) {
	p.mu.Lock()
	if e := p.entries[uid]; e != nil {
		if at := after.Add(time.Millisecond); at.Before(e.due) {
			e.due = at
		}
		e.wakeNext = true
	}
	p.mu.Unlock()
	p.poke()
}

// forget stops polling the campaign (finished, deleted, another
// operator's) and drops its last read.
func (p *ledgerPoller) forget(uid types.UID) {
	p.mu.Lock()
	delete(p.entries, uid)
	p.mu.Unlock()
}

func (p *ledgerPoller) poke() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// Start polls until ctx ends (manager.Runnable); only the leader's
// poller runs, as only its reconciles do.
func (p *ledgerPoller) Start(ctx context.Context) error {
	slots := make(chan struct{}, p.workers)
	var wg sync.WaitGroup
	defer wg.Wait()
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		for _, e := range p.takeDue() {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return nil
			}
			wg.Go(func() {
				defer func() { <-slots }()
				p.poll(ctx, e)
			})
		}
		timer.Reset(p.untilNext())
		select {
		case <-ctx.Done():
			return nil
		case <-p.wake:
		case <-timer.C:
		}
	}
}

// takeDue marks the entries whose read is due busy and returns them.
func (p *ledgerPoller) takeDue() []*pollEntry {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	var due []*pollEntry
	for _, e := range p.entries {
		if !e.busy && !e.due.After(now) {
			e.busy = true
			due = append(due, e)
		}
	}
	return due
}

// untilNext is how long until the next entry not being read is due
// (an interval when none is registered: register pokes).
func (p *ledgerPoller) untilNext() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	next := p.interval
	now := p.now()
	for _, e := range p.entries {
		if !e.busy {
			next = min(next, max(e.due.Sub(now), 0))
		}
	}
	return next
}

// poll reads one campaign, keeps the read and wakes its reconcile when
// the read is news.
func (p *ledgerPoller) poll(ctx context.Context, e *pollEntry) {
	rctx, cancel := context.WithTimeout(p.bound(ctx), p.timeout)
	rd := p.read(rctx, e.l, e.st)
	cancel()
	ledgerPollerReads.WithLabelValues(pollOutcome(rd)).Inc()
	p.mu.Lock()
	if p.entries[e.uid] != e {
		// Forgotten, or registered with a new handle, while it was read.
		p.mu.Unlock()
		return
	}
	e.busy = false
	p.schedule(e, rd)
	// A new read: a reconcile may try the store once more after it.
	e.retryTaken = false
	news := !rd.same(e.last) || rd.needsAttention()
	if news {
		p.keep(e, rd)
	} else {
		// What it found is as true as of this read; a copy, as
		// reconciles may hold the last.
		cp := *e.last
		cp.at = rd.at
		e.last = &cp
	}
	wake := news || e.wakeNext
	e.wakeNext = false
	p.mu.Unlock()
	// The loop's timer was set while this entry was busy, so without it:
	// its next read may be due before the timer fires (the endgame's 1 s
	// against the interval's 3 s cost a campaign up to 2 s at its end).
	p.poke()
	if !wake || ctx.Err() != nil {
		return
	}
	obj := &v1alpha1.SearchCampaign{ObjectMeta: metav1.ObjectMeta{Namespace: e.key.Namespace, Name: e.key.Name, UID: e.uid}}
	select {
	case p.events <- crevent.GenericEvent{Object: client.Object(obj)}:
	case <-ctx.Done():
	}
}

// keep makes rd the entry's last read; a status read without a version
// of its own (a listing) gets the read's.
func (p *ledgerPoller) keep(e *pollEntry, rd *ledgerRead) {
	e.seq++
	if rd.version == "" {
		rd.version = "poll " + strconv.FormatUint(e.seq, 10)
	}
	e.last = rd
}

// schedule sets when the entry is read after rd: after a failed read,
// its backoff (the next of a store that is down or refuses the keys is
// not waited an interval for, nor made at every interval for ever).
func (p *ledgerPoller) schedule(e *pollEntry, rd *ledgerRead) {
	if rd.err == nil {
		e.failures = 0
		e.due = p.now().Add(p.next(rd))
		return
	}
	e.failures++
	e.due = p.now().Add(p.retryAfter(e.failures))
}

// The poller's backoff after failed reads: firstRetry, doubled per
// failure in a row, up to retryCapFactor poll intervals.
const (
	firstRetry     = time.Second
	retryCapFactor = 4
)

// retryAfter is the wait after the n-th failed read in a row, spread by
// jitter so campaigns of one store that failed together do not retry in
// lockstep.
func (p *ledgerPoller) retryAfter(n int) time.Duration {
	limit := p.interval * retryCapFactor
	return jitter.Spread(doubled(min(firstRetry, limit), limit, n))
}

// next is the wait before the read after rd: the interval, shorter in the
// endgame and while the result is being assembled (the reconcile that
// completes the campaign waits on this read), spread by jitter.
func (p *ledgerPoller) next(rd *ledgerRead) time.Duration {
	d := p.interval
	switch {
	case rd.err != nil || rd.status == nil:
	case rd.status.Complete && rd.asm == nil:
		// Every chunk is decided: a partition is assembling the result.
		d = endgameInterval(p.interval)
	case endgamePoll(rd.status, p.interval) > 0:
		d = endgamePoll(rd.status, p.interval)
	}
	return jitter.Spread(d)
}
