package engine

import (
	"context"
	"time"

	"github.com/go-logr/logr"

	"github.com/blastfleet/blastfleet/internal/storage/runrecord"
)

// runUpdateEvery is how often a running partition refreshes its record:
// the report's sign of life, at one small PUT a minute.
const runUpdateEvery = time.Minute

// runRecorder keeps a campaign run's record up to date. A record that
// cannot be written is logged, never fatal: it is for reports, and the
// ledger alone decides the campaign's result.
type runRecorder struct {
	c   *Campaign
	rec runrecord.RunRecord // written by one goroutine at a time: setup, the lane, the end
	log logr.Logger
	// asked is when the loop last asked for a refresh; the loop's own.
	asked time.Time
}

// newRunRecorder is nil outside campaigns; a nil recorder writes nothing.
func newRunRecorder(c *Campaign, started time.Time, log logr.Logger) *runRecorder {
	if c == nil {
		return nil
	}
	return &runRecorder{c: c, log: log, rec: runrecord.RunRecord{Holder: c.Holder, Namespace: c.Namespace, Campaign: c.Name,
		Partition: c.Partition, Site: c.Site, Started: started}, asked: started}
}

func (r *runRecorder) write(ctx context.Context, sum *Summary, state string, cause error) {
	if r == nil {
		return
	}
	r.rec.State, r.rec.Summary, r.rec.Updated, r.rec.Error = state, sum, time.Now(), ""
	if cause != nil {
		r.rec.Error = cause.Error()
	}
	// Even a cancelled run says how it ended, within a bound: an object
	// store that does not answer must not hold the master up.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
	defer cancel()
	if err := runrecord.WriteRun(wctx, r.c.Ledger.Store(), &r.rec); err != nil {
		r.log.Error(err, "writing the run record (for reports only; the search goes on)")
	}
}

// due says whether a running record should be refreshed now (at most
// every runUpdateEvery), and if so counts the refresh as asked for.
func (r *runRecorder) due() bool {
	if r == nil || time.Since(r.asked) < runUpdateEvery {
		return false
	}
	r.asked = time.Now()
	return true
}
