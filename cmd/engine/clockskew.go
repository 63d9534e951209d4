package main

import (
	"fmt"
	"os"
	"time"
)

// clockSkewEnv is a hidden, test-only hook: a Go duration added to this
// partition's ledger clock, so a test can run a partition whose clock
// disagrees with the others' (lease expiry is judged on each taker's own
// clock, and must survive that).
const clockSkewEnv = "BLASTFLEET_TEST_CLOCK_SKEW"

// ledgerClock is the ledger's clock: time.Now, skewed if the hook is set.
func ledgerClock() (func() time.Time, error) {
	v := os.Getenv(clockSkewEnv)
	if v == "" {
		return time.Now, nil
	}
	skew, err := time.ParseDuration(v)
	if err != nil {
		return nil, fmt.Errorf("%s=%q: %w", clockSkewEnv, v, err)
	}
	return func() time.Time { return time.Now().Add(skew) }, nil
}
