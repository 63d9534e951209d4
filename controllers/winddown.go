package controllers

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/blastfleet/blastfleet/controllers/executor"
)

// windDown decides which of a finished campaign's partitions go now:
// queued ones at once, running ones once grace has passed since the
// campaign completed, so they can exit by themselves (they find no chunk
// left) and their run records say how they ended. wait, when positive, is
// how long until the next of them is due.
func windDown(parts []partition, completed *metav1.Time, grace time.Duration, now time.Time) (remove []partition, wait time.Duration) {
	end := now // no completion time: nothing to wait for
	if completed != nil {
		end = completed.Add(grace)
	}
	for _, p := range parts {
		switch {
		case !p.active():
		case p.state.Phase == executor.Queued || !now.Before(end):
			remove = append(remove, p)
		default:
			wait = end.Sub(now)
		}
	}
	return remove, wait
}
