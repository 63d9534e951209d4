package controllers

import (
	"time"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
)

// backoff is the wait before a partition's restart-th replacement:
// backoffSeconds doubled per earlier failure of the same partition index,
// capped at maxBackoffSeconds.
func backoff(p v1alpha1.RetryPolicy, restart int) time.Duration {
	d := time.Duration(p.BackoffSeconds) * time.Second
	limit := time.Duration(p.MaxBackoffSeconds) * time.Second
	for i := 1; i < restart && d < limit; i++ {
		d *= 2
	}
	return min(d, limit)
}
