package jitter

import (
	"testing"
	"time"
)

// TestSpread: every interval stays within ±Fraction, zero stays zero,
// and the intervals are spread, both ways, across the range.
func TestSpread(t *testing.T) {
	if got := Spread(0); got != 0 {
		t.Errorf("Spread(0) = %v, want 0 (no requeue stays none)", got)
	}
	if got := Spread(-time.Second); got != -time.Second {
		t.Errorf("Spread(-1s) = %v, want it unchanged", got)
	}
	const d = 10 * time.Second
	lo, hi := time.Duration(float64(d)*(1-Fraction)), time.Duration(float64(d)*(1+Fraction))
	var below, above int
	seen := map[time.Duration]bool{}
	for range 1000 {
		got := Spread(d)
		if got < lo || got > hi {
			t.Fatalf("Spread(%v) = %v, outside [%v, %v]", d, got, lo, hi)
		}
		switch {
		case got < d-d/10:
			below++
		case got > d+d/10:
			above++
		}
		seen[got] = true
	}
	// Uniform over ±20%: a quarter of the draws falls beyond ±10% on
	// each side (250 of 1000 expected; under 150 is ~10^-14).
	if below < 150 || above < 150 {
		t.Errorf("of 1000 draws %d fell under %v and %d over %v; want both near 250", below, d-d/10, above, d+d/10)
	}
	if len(seen) < 900 {
		t.Errorf("only %d distinct intervals in 1000 draws: not spread", len(seen))
	}
}
