package controllers

import (
	"context"
	"time"
)

// windDown is the policy for a finished campaign's partition: delete it
// now, or give it until end (when it should have exited by itself, finding
// no chunk left) and look again then. Queued partitions go at once.
func windDown(p partition, now, end time.Time) (deleteNow bool, wait time.Duration) {
	switch {
	case !p.active():
		return false, 0
	case p.state.Phase == PartitionQueued || !now.Before(end):
		return true, 0
	default:
		return false, end.Sub(now)
	}
}

// windDownPartitions ends a finished campaign's partitions: queued ones
// at once, running ones once they had WindDown since the campaign
// finished to exit by themselves (they find no chunk left).
func (run *campaignRun) windDownPartitions(ctx context.Context) error {
	if run.parts == nil {
		parts, err := run.listPartitions(ctx)
		if err != nil {
			return err
		}
		run.parts = parts
	}
	end := run.now
	if t := run.c.Status.CompletionTime; t != nil {
		end = t.Add(run.r.WindDown)
	}
	for _, p := range run.parts {
		del, wait := windDown(p, run.now, end)
		switch {
		case del:
			if err := run.deletePartition(ctx, p, "campaign finished"); err != nil {
				return err
			}
		case wait > 0:
			run.requeueWithin(wait)
		}
	}
	return nil
}
