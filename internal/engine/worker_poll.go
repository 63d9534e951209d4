package engine

import "time"

// A worker rank polls its transport (MPI) seldom while its BLAST+ task
// runs, leaving the cores to BLAST, and as often as the master does
// between tasks, when it waits on the master or a peer: the last task's
// output, written by one worker with its peers' hits, and the stop that
// ends the run are a few such round trips, each up to a poll interval
// late (under mpirun, 0.15 s at the end of a run with the slow polls
// throughout, against 0.02-0.07 s in process: docs/benchmarks.md).
const (
	busyPollLimit = 50 * time.Millisecond
	idlePollLimit = 5 * time.Millisecond
)

// pollLimiter is a transport whose idle polling can be paced (the MPI
// transport; the in-process one has no polling to pace).
type pollLimiter interface {
	SetIdleLimit(time.Duration)
}

// pollBusy paces the worker's polls for a running task (busy) or for
// waiting on others.
func (w *worker) pollBusy(busy bool) {
	l, ok := w.tr.(pollLimiter)
	if !ok {
		return
	}
	if busy {
		l.SetIdleLimit(busyPollLimit)
	} else {
		l.SetIdleLimit(idlePollLimit)
	}
}
