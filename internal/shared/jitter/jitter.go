package jitter

import (
	"math/rand/v2"
	"time"
)

// Fraction bounds the spread: an interval d becomes one in
// [d(1-Fraction), d(1+Fraction)].
const Fraction = 0.2

// Spread returns d moved by a uniformly random amount of at most
// Fraction of d either way. Zero and negative intervals are returned
// as they are (zero means "no requeue" to a controller).
func Spread(d time.Duration) time.Duration {
	if d <= 0 {
		return d
	}
	return time.Duration(float64(d) * (1 + Fraction*(2*rand.Float64()-1)))
}
