package replica

import (
	"fmt"
	"strings"
	"time"
)

// maxSkips bounds the skips a replica's Stats keep (the latest ones);
// SkipCount counts them all.
const maxSkips = 16

// Stats is what one replica did for a Set, over all its fetches.
type Stats struct {
	Name  string
	State string // "healthy", "skipped", "failed" or "probing"
	// Bytes and Pieces were read from this replica and written (a hedge
	// loser's bytes are not counted).
	Bytes, Pieces int64
	Errors        int64         // failed reads (errors, short reads, missing keys)
	Busy          time.Duration // time with at least one request in flight
	// HedgesWon and HedgesLost count the races over a hedged piece this
	// replica took part in: won by finishing first, lost by being cut.
	HedgesWon, HedgesLost int64
	Throughput            float64       // bytes per second (EWMA); 0 before the first sample
	Latency               time.Duration // time to first byte (EWMA)
	Skips                 []Skip        // the latest maxSkips skips and failures, oldest first
	SkipCount             int           // every skip and failure
}

// Skip is one time a replica was left alone: skipped as a hot spot or
// cooled down after a failure.
type Skip struct {
	At, Until time.Time
	Why       string // "skipped: throughput ..." or "failed: <error>"
}

func (st *Stats) addSkip(sk Skip) {
	st.SkipCount++
	st.Skips = append(st.Skips, sk)
	if len(st.Skips) > maxSkips {
		st.Skips = append([]Skip(nil), st.Skips[len(st.Skips)-maxSkips:]...)
	}
}

// Stats returns every replica's counters, in the order of New's sources.
func (s *Set) Stats() []Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	out := make([]Stats, len(s.replicas))
	for i, r := range s.replicas {
		st := r.stats
		st.Skips = append([]Skip(nil), r.stats.Skips...)
		if r.running > 0 {
			st.Busy += now.Sub(r.busyAt)
		}
		st.Throughput, st.Latency = r.tput, r.lat
		switch {
		case r.until.IsZero():
			st.State = "healthy"
		case now.Before(r.until):
			st.State = r.cause
		default:
			st.State = "probing"
		}
		out[i] = st
	}
	return out
}

// String is one line for logs: each replica's share, speed and state.
func (s *Set) String() string {
	var b strings.Builder
	for i, st := range s.Stats() {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s: %.1f MiB in %d pieces, %s, %s", st.Name, float64(st.Bytes)/(1<<20), st.Pieces, rate(st.Throughput), st.State)
		if st.Errors > 0 {
			fmt.Fprintf(&b, ", %d errors", st.Errors)
		}
		if st.SkipCount > 0 {
			fmt.Fprintf(&b, ", left alone %d times (last %s)", st.SkipCount, st.Skips[len(st.Skips)-1].Why)
		}
		if st.HedgesWon+st.HedgesLost > 0 {
			fmt.Fprintf(&b, ", hedges %d won %d lost", st.HedgesWon, st.HedgesLost)
		}
	}
	return b.String()
}
