package replica

import (
	"fmt"
	"time"
)

const (
	// slowFactor marks a hot spot: throughput under 1/slowFactor of the
	// best replica's, or latency over slowFactor times the best's.
	// Healthy stores differ by up to 2x (another tenant, a longer path);
	// CEFT-PVFS's stressed disk was about 10x slower. 4 sits between, so
	// ordinary variance never skips a replica and a real hot spot does
	// within its first measured pieces.
	slowFactor = 4
	// slowSlack: a replica is never a hot spot for a piece that took, or
	// a first byte that came, less than this longer than on the best
	// one. On loopback or a LAN a request takes milliseconds, and 4x of
	// 10 ms is scheduling noise on a loaded machine, not a slow store;
	// 100 ms is less than a 4 MiB piece's transfer at 40 MB/s.
	slowSlack = 100 * time.Millisecond
	// hotPieces in a row judged slow make a hot spot: one can be a stall
	// of a healthy store (a pause, a busy core, a lost packet), two are
	// the store. A probe needs one: its replica was a hot spot already.
	hotPieces = 2
	// ewmaWeight is the newest sample's weight: a change in a store shows
	// within about three pieces, one odd piece does not swing it.
	ewmaWeight = 0.3
	// sampleBytes: a piece shorter than this measures latency rather
	// than throughput, so it gives no throughput sample (a Set with
	// smaller pieces samples every whole piece).
	sampleBytes = 1 << 20
	// judgeWithin: a piece that ended with no other replica's figures to
	// compare (a fresh Set reading a shard's small files one at a time)
	// is judged by the next replica's figures that come within this of
	// its end: long enough for the next file, short enough that both
	// pieces saw the same network.
	judgeWithin = time.Second
)

// measure records a piece r read: n bytes in d, the first after ttfb
// (< 0: unknown). A probe's sample replaces the old averages, which
// describe the store as it was before its cool-down. The caller holds
// s.mu.
func (s *Set) measure(r *replica, n int64, d, ttfb time.Duration, now time.Time) {
	s.sample(r, n, d, ttfb, now)
	s.judge(r, n, now.Add(-d), now)
	if r.until.IsZero() {
		s.judgeWaiting(r, now)
	}
}

// judgeWaiting judges the pieces that ended with nothing to compare, now
// that healthy replica by has figures. The caller holds s.mu.
func (s *Set) judgeWaiting(by *replica, now time.Time) {
	for _, o := range s.replicas {
		w := o.unjudged
		if o == by || w == nil {
			continue
		}
		o.unjudged = nil
		if o.until.IsZero() && now.Sub(w.at) <= judgeWithin {
			s.judge(o, w.n, w.since, now)
		}
	}
}

// sample adds a piece's figures to r's averages (see measure). The
// caller holds s.mu.
func (s *Set) sample(r *replica, n int64, d, ttfb time.Duration, now time.Time) {
	probe := r.probing(now)
	r.lastTput, r.lastLat = 0, -1
	r.unjudged = nil // its figures are gone
	if n >= min(sampleBytes, s.opts.PieceSize) && d > 0 {
		r.lastTput = float64(n) / d.Seconds()
		if r.tput == 0 || probe {
			r.tput = r.lastTput
		} else {
			r.tput += ewmaWeight * (r.lastTput - r.tput)
		}
	}
	if ttfb >= 0 {
		r.lastLat = ttfb
		if !r.hasLat || probe {
			r.lat, r.hasLat = ttfb, true
		} else {
			r.lat += time.Duration(ewmaWeight * float64(ttfb-r.lat))
		}
	}
	r.sampledAt = now
}

// lostRace records that r lost a hedged piece to winner: r had it in
// flight hedgeFactor times longer than the winner's speed needs, and the
// winner, started later, still finished first. Its own figures for the
// piece would flatter it (it is cut before it ends), so the loss itself
// counts as a slow piece: two in a row, or one while probing, and r is a
// hot spot. The caller holds s.mu.
func (s *Set) lostRace(r, winner *replica, now time.Time) {
	if winner.until.IsZero() {
		r.hot++
	}
	if r.hotSpot(now) {
		s.coolDown(r, "skipped", fmt.Sprintf("lost a hedged piece to %s (%d slow pieces in a row)", winner.src.Name, max(r.hot, 1)), now)
	}
}

// judge compares the piece r just read (n bytes, started at since) with
// the best healthy replica: a hot spot is skipped (unless no other
// replica is healthy), a probe that is not one has recovered.
//
// The slow side is r's latest pieces, so a hot spot shows within two
// pieces rather than after its average sank; the fast side is the best replica's
// average or latest piece, whichever is slower, and only from a replica
// that finished a piece since r's began. Older figures may predate a
// slowdown of every replica (the worker's own link, say), which is no
// reason to skip one. The caller holds s.mu.
func (s *Set) judge(r *replica, n int64, since, now time.Time) {
	var bestT, bestL float64
	var nameT, nameL string
	for _, o := range s.replicas {
		if o == r || !o.until.IsZero() || o.sampledAt.Before(since) {
			continue
		}
		if t := o.current(); t > bestT {
			bestT, nameT = t, o.src.Name
		}
		if o.hasLat && (nameL == "" || float64(max(o.lat, o.lastLat)) < bestL) {
			bestL, nameL = float64(max(o.lat, o.lastLat)), o.src.Name
		}
	}
	if nameT == "" && nameL == "" && r.until.IsZero() {
		// Nothing to compare with yet: a healthy replica's piece waits
		// for the next figures of another (judgeWaiting).
		r.unjudged = &unjudged{n: n, since: since, at: now}
		return
	}
	why := ""
	lat := float64(r.lastLat)
	switch {
	// Latency first: a slow answer also lowers a piece's throughput.
	case nameL != "" && r.lastLat >= 0 && lat > slowFactor*bestL && lat-bestL > float64(slowSlack):
		why = fmt.Sprintf("latency %s, over %d times %s's %s", r.lastLat.Round(time.Millisecond), slowFactor, nameL, time.Duration(bestL).Round(time.Millisecond))
	case nameT != "" && r.lastTput > 0 && r.lastTput*slowFactor < bestT &&
		float64(n)/r.lastTput-float64(n)/bestT > slowSlack.Seconds():
		why = fmt.Sprintf("throughput %s, under 1/%d of %s's %s", rate(r.lastTput), slowFactor, nameT, rate(bestT))
	}
	switch {
	case why != "":
		r.hot++
	case nameT != "" || nameL != "":
		r.hot = 0 // compared, and not slow; no comparison changes nothing
	}
	probing := r.probing(now)
	switch {
	case why != "" && r.hotSpot(now):
		// The best replica is healthy, so r is not the last one left.
		s.coolDown(r, "skipped", why, now)
	case why == "" && probing:
		r.until, r.cause = time.Time{}, ""
		s.opts.Log.Info("replica recovered", "replica", r.src.Name,
			"throughput", rate(r.tput), "latency", r.lat.Round(time.Millisecond).String())
	}
}

// probing says whether r's cool-down is over and it awaits its probe.
func (r *replica) probing(now time.Time) bool { return !r.until.IsZero() && !now.Before(r.until) }

// hotSpot says whether r's latest slow piece makes it a hot spot: one
// while probing, hotPieces in a row while healthy.
func (r *replica) hotSpot(now time.Time) bool {
	return r.probing(now) || r.until.IsZero() && r.hot >= hotPieces
}

// current is r's throughput as the slower of its average and its latest
// piece: what it can be counted on for now.
func (r *replica) current() float64 {
	if r.lastTput > 0 && r.lastTput < r.tput {
		return r.lastTput
	}
	return r.tput
}

// fail records a failed read on r and cools it down. The caller holds
// s.mu.
func (s *Set) fail(r *replica, err error, now time.Time) {
	r.stats.Errors++
	s.coolDown(r, "failed", err.Error(), now)
}

// coolDown leaves r alone for the cool-down; cause is "skipped" or
// "failed". A replica already cooling down has its cool-down extended
// and nothing logged again. The caller holds s.mu.
func (s *Set) coolDown(r *replica, cause, why string, now time.Time) {
	fresh := r.until.IsZero() || !now.Before(r.until)
	r.until, r.cause = now.Add(s.opts.CoolDown), cause
	if !fresh {
		return
	}
	r.stats.addSkip(Skip{At: now, Until: r.until, Why: cause + ": " + why})
	s.opts.Log.Info("replica "+cause, "replica", r.src.Name, "why", why, "coolDown", s.opts.CoolDown.String())
}

// rate formats bytes per second.
func rate(bps float64) string { return fmt.Sprintf("%.1f MiB/s", bps/(1<<20)) }
