package controllers

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/blastfleet/blastfleet/internal/shared/jitter"
)

// TestStoreBackoff: each failure in a row doubles a campaign's poll, up
// to 16 polls or maxStoreBackoff, spread by jitter; a success starts it again; one
// campaign's failures do not slow another's.
func TestStoreBackoff(t *testing.T) {
	var b storeBackoff
	const poll = 15 * time.Second
	within := func(got, want time.Duration) bool {
		return got >= time.Duration(float64(want)*(1-jitter.Fraction)) && got <= time.Duration(float64(want)*(1+jitter.Fraction))
	}
	for i, want := range []time.Duration{poll, 2 * poll, 4 * poll, 8 * poll, 16 * poll, 16 * poll} {
		if got := b.next("a", poll); !within(got, want) {
			t.Errorf("failure %d: next poll in %v, want %v +-%.0f%%", i+1, got, want, jitter.Fraction*100)
		}
	}
	if got := b.next(types.UID("b"), poll); !within(got, poll) {
		t.Errorf("another campaign's first failure: %v, want %v", got, poll)
	}
	b.reset("a")
	if got := b.next("a", poll); !within(got, poll) {
		t.Errorf("after a success: %v, want %v", got, poll)
	}
	// A long poll interval is capped by maxStoreBackoff.
	for range 10 {
		b.next("slow", time.Minute)
	}
	if got := b.next("slow", time.Minute); !within(got, maxStoreBackoff) {
		t.Errorf("backoff of a 1m poll: %v, want %v", got, maxStoreBackoff)
	}
	seen := map[time.Duration]bool{}
	for range 20 {
		b.reset("c")
		seen[b.next("c", poll)] = true
	}
	if len(seen) < 2 {
		t.Errorf("backoff not spread: %v", seen)
	}
}
