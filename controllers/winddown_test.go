package controllers

import (
	"testing"
	"time"
)

func TestWindDown(t *testing.T) {
	end := t0.Add(30 * time.Second) // completion + WindDown
	for _, c := range []struct {
		name      string
		p         *part
		now       time.Time
		deleteNow bool
		wait      time.Duration
	}{
		{"queued goes at once", newPart(0, PartitionQueued), t0, true, 0},
		{"running gets its time to exit", newPart(0, PartitionRunning), t0, false, 30 * time.Second},
		{"running past its time goes", newPart(0, PartitionRunning), end, true, 0},
		{"finished stays as a record", newPart(0, PartitionSucceeded), end.Add(time.Hour), false, 0},
		{"failed stays as a record", newPart(0, PartitionFailed), t0, false, 0},
	} {
		del, wait := windDown(c.p.build(), c.now, end)
		if del != c.deleteNow || wait != c.wait {
			t.Errorf("%s: windDown = (%v, %v), want (%v, %v)", c.name, del, wait, c.deleteNow, c.wait)
		}
	}
}
