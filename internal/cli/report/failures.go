package report

import (
	"fmt"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/runrecord"
)

// silentAfter is how long a running run may go without refreshing its
// record before the report calls it silent: the engine refreshes it every
// minute, so three missed refreshes mean it ended without saying so.
const silentAfter = 3 * time.Minute

// Bounds on the failure lists, so a campaign with a systematic failure
// still gives a readable page.
const (
	maxFailedQueriesShown  = 1000
	maxFailedAttemptsShown = 500
)

type failedAttempt struct {
	Range  string
	Number int
	Holder string
	At     string
	Reason ledger.FailureReason
}

type runProblem struct {
	Run, Text, Error string
}

// failuresView is everything that went wrong, from the ledger and the runs.
type failuresView struct {
	Queries      []ledger.FailedQuery
	MoreQueries  int
	Attempts     []failedAttempt
	MoreAttempts int
	FailedRuns   []runProblem
	SilentRuns   []runProblem
	Problems     []string
}

// Count is how many failures the page lists: failed queries, failed
// attempts, failed or silent runs and ledger problems.
func (f *failuresView) Count() int {
	return len(f.Queries) + f.MoreQueries + len(f.Attempts) + f.MoreAttempts + len(f.FailedRuns) + len(f.SilentRuns) + len(f.Problems)
}

func buildFailures(r *Report) *failuresView {
	f := &failuresView{Problems: r.Status.Problems}
	fq := r.Status.FailedQueries
	f.Queries = fq[:min(len(fq), maxFailedQueriesShown)]
	f.MoreQueries = len(fq) - len(f.Queries)
	for _, h := range r.History {
		for _, a := range h.Attempts {
			if a.Failure == nil {
				continue
			}
			if len(f.Attempts) == maxFailedAttemptsShown {
				f.MoreAttempts++
				continue
			}
			f.Attempts = append(f.Attempts, failedAttempt{Range: h.Range.String(), Number: a.Number, Holder: a.Holder,
				At: stamp(a.StartedAt), Reason: *a.Failure})
		}
	}
	for i := range r.Runs {
		run := &r.Runs[i]
		switch {
		case run.State == runrecord.RunFailed:
			f.FailedRuns = append(f.FailedRuns, runProblem{Run: runName(run),
				Text: fmt.Sprintf("failed at %s, after %s", stamp(run.Updated), seconds(run.Updated.Sub(run.Started).Seconds())), Error: run.Error})
		case run.State == runrecord.RunRunning && r.Meta.Generated.Sub(run.Updated) > silentAfter:
			f.SilentRuns = append(f.SilentRuns, runProblem{Run: runName(run),
				Text: fmt.Sprintf("still says running, but no report since %s (%s before this report): it ended without saying how",
					stamp(run.Updated), seconds(r.Meta.Generated.Sub(run.Updated).Seconds()))})
		}
	}
	return f
}
