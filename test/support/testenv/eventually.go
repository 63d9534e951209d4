package testenv

import (
	"testing"
	"time"
)

// Eventually polls cond every interval until it holds, and fails the test
// with what cond last said if timeout passes first.
func Eventually(t testing.TB, what string, timeout, interval time.Duration, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	last := ""
	for time.Now().Before(deadline) {
		ok, state := cond()
		if ok {
			return
		}
		last = state
		time.Sleep(interval)
	}
	t.Fatalf("timed out after %v waiting for %s; last seen: %s", timeout, what, last)
}
