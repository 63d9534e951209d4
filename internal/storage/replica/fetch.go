package replica

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

const (
	// hedgeFactor: a piece in flight this many times longer than the
	// fastest replica would need is hedged on an idle one. Three keeps
	// hedges to real stragglers (a piece's time varies by less on a
	// healthy store) while a stuck piece costs at most three pieces' time.
	hedgeFactor = 3
	// minHedgeDelay: no piece is hedged sooner, so scheduling noise on a
	// loaded machine (tens of milliseconds) does not double requests.
	minHedgeDelay = 200 * time.Millisecond
	// blindHedgeDelay is the hedge delay before any replica was measured.
	blindHedgeDelay = 2 * time.Second
	// tick is how often a fetch looks for stragglers to hedge, probes due
	// and request slots freed by other fetches.
	tick = 20 * time.Millisecond
)

// piece is a byte range of the object being fetched.
type piece struct {
	off, n  int64
	done    bool
	queued  bool
	running []*attempt
	failed  []error // by replica index: why that replica could not read it
}

// attempt is one request for a piece on one replica.
type attempt struct {
	p      *piece
	r      *replica
	start  time.Time
	hedge  bool // started while another replica had the piece in flight
	cancel context.CancelFunc
}

type result struct {
	a    *attempt
	buf  []byte
	ttfb time.Duration
	end  time.Time
	err  error
}

// fetch is one Fetch call's state, owned by the goroutine running it.
type fetch struct {
	s        *Set
	key      string
	size     int64
	dst      io.WriterAt
	multi    bool // in several pieces, read by ranges
	pieces   []*piece
	queue    []*piece
	left     int
	results  chan result
	exit     chan struct{} // closed when the fetch returns: attempts stop sending
	attempts sync.WaitGroup
}

// Fetch reads key, size bytes long, from the replicas into dst, each
// piece written once at its offset (pieces arrive out of order). It fails
// only when every replica failed some piece, with each replica's error.
// A replica that lacks the key has failed. The bytes are not checked:
// the caller hashes dst afterwards.
func (s *Set) Fetch(ctx context.Context, key string, size int64, dst io.WriterAt) error {
	if len(s.replicas) == 0 {
		return fmt.Errorf("fetching %s: no replicas", key)
	}
	if size < 0 {
		return fmt.Errorf("fetching %s: size %d", key, size)
	}
	f := &fetch{s: s, key: key, size: size, dst: dst, results: make(chan result), exit: make(chan struct{})}
	for _, r := range s.replicas {
		f.multi = f.multi || r.ranged != nil
	}
	f.multi = f.multi && size > s.opts.PieceSize
	step := size
	if f.multi {
		step = s.opts.PieceSize
	}
	for off := int64(0); off < size || len(f.pieces) == 0; off += step {
		p := &piece{off: off, n: min(step, size-off), queued: true, failed: make([]error, len(s.replicas))}
		f.pieces = append(f.pieces, p)
	}
	f.queue = append([]*piece(nil), f.pieces...)
	f.left = len(f.pieces)
	return f.run(ctx)
}

func (f *fetch) run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer f.attempts.Wait()
	defer close(f.exit)
	defer cancel()
	ticker := time.NewTicker(tick)
	defer ticker.Stop()
	for f.left > 0 {
		if err := f.dispatch(ctx); err != nil {
			return err
		}
		select {
		case res := <-f.results:
			if err := f.handle(ctx, res); err != nil {
				return err
			}
		case <-ticker.C:
		case <-ctx.Done():
			return fmt.Errorf("fetching %s: %w", f.key, ctx.Err())
		}
	}
	return nil
}

// dispatch gives queued pieces to replicas with a free request slot, and
// once the queue is empty hedges stragglers.
func (f *fetch) dispatch(ctx context.Context) error {
	s := f.s
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	// Queued pieces no replica failed have the same candidates: once one
	// of them finds no replica, the rest would not either (a long queue
	// is not scanned on every tick).
	blocked := false
	for i := 0; i < len(f.queue); {
		p := f.queue[i]
		if f.allFailed(p) {
			return f.failure(p)
		}
		clean := f.clean(p)
		var r *replica
		if !clean || !blocked {
			r = f.pick(p, now)
		}
		if r == nil {
			blocked = blocked || clean
			i++
			continue
		}
		f.queue = append(f.queue[:i], f.queue[i+1:]...)
		p.queued = false
		f.start(ctx, p, r, false, now)
	}
	if len(f.queue) > 0 {
		return nil
	}
	for _, p := range f.pieces {
		if p.done || len(p.running) != 1 {
			continue
		}
		// A replica left alone hedges at once: it is known slow.
		a := p.running[0]
		if a.r.until.IsZero() && now.Sub(a.start) < f.hedgeDelay(p) {
			continue
		}
		if r := f.hedger(p, a, now); r != nil {
			f.start(ctx, p, r, true, now)
		}
	}
	return nil
}

// candidate tells whether r may read p at all: it has not failed p, is
// not reading it, and reads ranges when the object is in pieces (a store
// without them reads a piece from the object's start, so only once every
// store with ranges failed it).
func (f *fetch) candidate(p *piece, r *replica) bool {
	if p.failed[r.idx] != nil {
		return false
	}
	for _, a := range p.running {
		if a.r == r {
			return false
		}
	}
	if f.multi && r.ranged == nil {
		for _, o := range f.s.replicas {
			if o.ranged != nil && p.failed[o.idx] == nil {
				return false
			}
		}
	}
	return true
}

// pick chooses the replica for a queued piece: among candidates with a
// free slot, the one with most free slots (so every replica gets work at
// the start), then the sooner (see sooner). A replica cooling down is a
// candidate only when no candidate is healthy or due a probe: never skip
// the last.
func (f *fetch) pick(p *piece, now time.Time) *replica {
	s := f.s
	lastResort := true
	for _, r := range s.replicas {
		if f.candidate(p, r) && s.limit(r, now, false) > 0 {
			lastResort = false
			break
		}
	}
	var best *replica
	bestFree := 0
	for _, r := range s.replicas {
		if !f.candidate(p, r) {
			continue
		}
		free := s.limit(r, now, lastResort) - r.running
		if free > bestFree || (free == bestFree && free > 0 && sooner(r, best, p.n)) {
			best, bestFree = r, free
		}
	}
	return best
}

// sooner says whether r should read n bytes rather than o, both free: a
// replica not measured yet first, then the one expected to read them
// sooner. A shard's small files come one at a time, each one piece with
// every replica free: without measuring each replica they would all go
// to the first one, a hot spot or not, and it would never be compared
// with the others.
func sooner(r, o *replica, n int64) bool {
	if !r.measured() || !o.measured() {
		return !r.measured() && o.measured()
	}
	return estimate(r, n) < estimate(o, n)
}

// measured says whether r has given a latency or throughput figure.
func (r *replica) measured() bool { return r.hasLat || r.tput > 0 }

// estimate is how long r should take to read n bytes: its latency, plus
// the transfer once its throughput was measured.
func estimate(r *replica, n int64) time.Duration {
	if r.tput == 0 {
		return r.lat
	}
	return expected(r, n)
}

// hedgeDelay is how long p may stay in flight on one replica: three
// times what the fastest healthy replica would need for it.
func (f *fetch) hedgeDelay(p *piece) time.Duration {
	var fast *replica
	for _, r := range f.s.replicas {
		if r.until.IsZero() && r.tput > 0 && (fast == nil || r.tput > fast.tput) {
			fast = r
		}
	}
	if fast == nil {
		return blindHedgeDelay
	}
	return max(minHedgeDelay, hedgeFactor*expected(fast, p.n))
}

// expected is how long r should take to read n bytes.
func expected(r *replica, n int64) time.Duration {
	return r.lat + time.Duration(float64(n)/r.tput*float64(time.Second))
}

// hedger picks a healthy replica with a free slot that should read p
// sooner than a has been reading it, the fastest such.
func (f *fetch) hedger(p *piece, a *attempt, now time.Time) *replica {
	var best *replica
	for _, r := range f.s.replicas {
		if !f.candidate(p, r) || !r.until.IsZero() || r.running >= f.s.opts.InFlight {
			continue
		}
		if r.tput > 0 && expected(r, p.n) >= now.Sub(a.start) {
			continue
		}
		if best == nil || r.tput > best.tput {
			best = r
		}
	}
	return best
}

// start runs an attempt of p on r. The caller holds s.mu.
func (f *fetch) start(ctx context.Context, p *piece, r *replica, hedge bool, now time.Time) {
	actx, cancel := context.WithCancel(ctx)
	a := &attempt{p: p, r: r, start: now, hedge: hedge, cancel: cancel}
	p.running = append(p.running, a)
	r.start(now)
	f.attempts.Add(1)
	go func() {
		defer f.attempts.Done()
		defer cancel()
		buf, ttfb, err := readPiece(actx, r, f.key, p.off, p.n, f.size)
		end := time.Now()
		f.s.mu.Lock()
		r.finish(end)
		f.s.mu.Unlock()
		select {
		case f.results <- result{a: a, buf: buf, ttfb: ttfb, end: end, err: err}:
		case <-f.exit:
		}
	}()
}

// handle takes an attempt's result: the first success of a piece is
// written and cuts the others; a failure re-queues the piece for the
// other replicas.
func (f *fetch) handle(ctx context.Context, res result) error {
	a, p, s := res.a, res.a.p, f.s
	for i, b := range p.running {
		if b == a {
			p.running = append(p.running[:i], p.running[i+1:]...)
			break
		}
	}
	if p.done {
		return nil // lost a race already settled
	}
	if res.err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("fetching %s: %w", f.key, ctx.Err())
		}
		s.mu.Lock()
		p.failed[a.r.idx] = fmt.Errorf("%s: %w", a.r.src.Name, res.err)
		s.fail(a.r, res.err, res.end)
		s.mu.Unlock()
		if len(p.running) == 0 && !p.queued {
			p.queued = true
			f.queue = append([]*piece{p}, f.queue...)
		}
		return nil
	}
	if _, err := f.dst.WriteAt(res.buf, p.off); err != nil {
		return fmt.Errorf("fetching %s: writing bytes %d-%d: %w", f.key, p.off, p.off+p.n-1, err)
	}
	p.done = true
	f.left--
	s.mu.Lock()
	defer s.mu.Unlock()
	a.r.stats.Bytes += p.n
	a.r.stats.Pieces++
	for _, b := range p.running {
		b.cancel()
		a.r.stats.HedgesWon++
		b.r.stats.HedgesLost++
		// The loser would have needed longer than it had: a sample that
		// flatters it, so the loss is judged, not the sample (lostRace).
		s.sample(b.r, p.n, res.end.Sub(b.start), -1, res.end)
		if b.start.Before(a.start) {
			// Only a request overtaken is slow: a hedge cut because the
			// first request ended says nothing of its replica.
			s.lostRace(b.r, a.r, res.end)
		}
	}
	s.measure(a.r, p.n, res.end.Sub(a.start), res.ttfb, res.end)
	return nil
}

// clean tells whether no replica failed p.
func (f *fetch) clean(p *piece) bool {
	for _, err := range p.failed {
		if err != nil {
			return false
		}
	}
	return true
}

// allFailed tells whether every replica failed p.
func (f *fetch) allFailed(p *piece) bool {
	for _, err := range p.failed {
		if err == nil {
			return false
		}
	}
	return true
}

// failure is the error of a piece every replica failed.
func (f *fetch) failure(p *piece) error {
	return fmt.Errorf("fetching %s bytes %d-%d: every replica failed: %w",
		f.key, p.off, p.off+p.n-1, errors.Join(p.failed...))
}
