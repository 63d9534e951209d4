package replica

import (
	"sync"
	"time"

	"github.com/go-logr/logr"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// Source is one replica: a store holding the same files under the same
// keys as the others (one build of a database, say).
type Source struct {
	Name  string // for logs and stats: where the replica lives
	Store objstore.Store
}

// Defaults for Options' zero values.
const (
	// DefaultPieceSize: 4 MiB pieces take tens of milliseconds from a
	// healthy store, short enough that the last pieces of a shard do not
	// make a tail, long enough that a request's latency is a small part
	// of its time.
	DefaultPieceSize = 4 << 20
	// DefaultInFlight requests per replica keep its link busy while one
	// request waits for its first byte.
	DefaultInFlight = 2
	// DefaultCoolDown is how long a hot or failing replica is left alone
	// before one piece probes it again.
	DefaultCoolDown = 20 * time.Second
)

// Options tune a Set; zero values take the defaults.
type Options struct {
	PieceSize int64         // bytes per piece; an object this size or smaller is one piece
	InFlight  int           // requests in flight per replica
	CoolDown  time.Duration // how long a skipped or failed replica is left alone
	Log       logr.Logger   // skips, failures and recoveries; the zero Logger discards
}

// Set reads objects from several replicas. It learns each replica's
// throughput and latency across fetches, so one Set should serve a
// worker's whole life; it is safe for concurrent Fetches, which share
// each replica's requests in flight.
type Set struct {
	opts     Options
	replicas []*replica

	mu sync.Mutex // guards every replica's mutable state
}

// New returns a Set over sources, which must hold the same objects.
func New(sources []Source, opts Options) *Set {
	if opts.PieceSize <= 0 {
		opts.PieceSize = DefaultPieceSize
	}
	if opts.InFlight <= 0 {
		opts.InFlight = DefaultInFlight
	}
	if opts.CoolDown <= 0 {
		opts.CoolDown = DefaultCoolDown
	}
	s := &Set{opts: opts}
	for i, src := range sources {
		r := &replica{idx: i, src: src}
		r.ranged, _ = src.Store.(objstore.RangeReader)
		r.stats.Name = src.Name
		s.replicas = append(s.replicas, r)
	}
	return s
}

// replica is one source and what the Set knows of it. Everything but
// idx, src and ranged is guarded by Set.mu.
type replica struct {
	idx    int
	src    Source
	ranged objstore.RangeReader // nil when the store cannot read ranges

	tput   float64       // bytes per second (EWMA), 0 until measured
	lat    time.Duration // time to first byte (EWMA), 0 until measured
	hasLat bool
	// The latest piece's figures (lastTput 0, lastLat < 0: not measured)
	// and when it ended (a finished piece, or one lost to a hedge).
	lastTput  float64
	lastLat   time.Duration
	sampledAt time.Time
	hot       int       // pieces in a row judged slow
	unjudged  *unjudged // its latest piece, while nothing could be compared with it
	until     time.Time // end of a skip or failure's cool-down; zero when healthy
	cause     string    // "skipped" or "failed", while until is set
	running   int       // requests in flight, all fetches together
	busyAt    time.Time // when running went from 0 to 1
	stats     Stats
}

// unjudged is a piece of n bytes, read from since until at, that judge
// had no other replica's figures for.
type unjudged struct {
	n         int64
	since, at time.Time
}

// limit is how many requests r may have in flight now: all of them when
// healthy, one probe once its cool-down is over, none while it cools
// down unless it is the last resort for a piece.
func (s *Set) limit(r *replica, now time.Time, lastResort bool) int {
	switch {
	case r.until.IsZero() || lastResort:
		return s.opts.InFlight
	case !now.Before(r.until):
		return 1
	}
	return 0
}

// start books a request on r.
func (r *replica) start(now time.Time) {
	if r.running == 0 {
		r.busyAt = now
	}
	r.running++
}

// finish ends a request on r, counting the time r was busy.
func (r *replica) finish(now time.Time) {
	r.running--
	if r.running == 0 {
		r.stats.Busy += now.Sub(r.busyAt)
	}
}
