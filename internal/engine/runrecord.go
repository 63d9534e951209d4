package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-logr/logr"

	"github.com/blastfleet/blastfleet/internal/objstore"
)

// RunsPrefix is where, beside a campaign's ledger, each partition run
// keeps its record: what `blastfleet report` draws.
const RunsPrefix = "runs/"

// Run states.
const (
	RunRunning  = "running"
	RunComplete = "complete"
	RunFailed   = "failed"
	// RunStopped: the run was told to stop (SIGTERM: its pod deleted,
	// the campaign suspended or scaled down) before it ran out of work.
	RunStopped = "stopped"
)

// RunRecord is one partition run's account of itself in a campaign. The
// master writes it when it starts and when it ends; a run whose record
// still says running long after Updated ended without saying so.
type RunRecord struct {
	Holder    string    `json:"holder"`
	Namespace string    `json:"namespace,omitempty"`
	Campaign  string    `json:"campaign,omitempty"`
	Partition string    `json:"partition,omitempty"`
	State     string    `json:"state"`
	Error     string    `json:"error,omitempty"`
	Started   time.Time `json:"started"`
	Updated   time.Time `json:"updated"`
	Summary   *Summary  `json:"summary,omitempty"`
}

// RunKey is the record's key for a run holding leases as holder.
func RunKey(holder string) string { return RunsPrefix + safeKey(holder) + ".json" }

func safeKey(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9') {
			return r
		}
		return '_'
	}, s)
}

// WriteRun stores the record (replacing the run's earlier one).
func WriteRun(ctx context.Context, st objstore.Store, r *RunRecord) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if err := st.Put(ctx, RunKey(r.Holder), bytes.NewReader(data), int64(len(data))); err != nil {
		return fmt.Errorf("writing run record %s: %w", RunKey(r.Holder), err)
	}
	return nil
}

// ReadRuns reads every run record of a campaign, oldest start first. A
// record that does not parse is an error naming it.
func ReadRuns(ctx context.Context, st objstore.Store) ([]RunRecord, error) {
	infos, err := st.List(ctx, RunsPrefix)
	if err != nil {
		return nil, fmt.Errorf("listing run records: %w", err)
	}
	var out []RunRecord
	for _, in := range infos {
		if !strings.HasSuffix(in.Key, ".json") {
			continue
		}
		data, _, err := st.GetBytes(ctx, in.Key)
		if err != nil {
			return nil, fmt.Errorf("reading run record %s: %w", in.Key, err)
		}
		var r RunRecord
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("run record %s: %w", in.Key, err)
		}
		out = append(out, r)
	}
	sortRuns(out)
	return out, nil
}

func sortRuns(rs []RunRecord) {
	slices.SortStableFunc(rs, func(a, b RunRecord) int { return a.Started.Compare(b.Started) })
}

// runUpdateEvery is how often a running partition refreshes its record:
// the report's sign of life, at one small PUT a minute.
const runUpdateEvery = time.Minute

// runRecorder keeps a campaign run's record up to date. A record that
// cannot be written is logged, never fatal: it is for reports, and the
// ledger alone decides the campaign's result.
type runRecorder struct {
	c   *Campaign
	rec RunRecord // written by one goroutine at a time: setup, the lane, the end
	log logr.Logger
	// asked is when the loop last asked for a refresh; the loop's own.
	asked time.Time
}

// newRunRecorder is nil outside campaigns; a nil recorder writes nothing.
func newRunRecorder(c *Campaign, started time.Time, log logr.Logger) *runRecorder {
	if c == nil {
		return nil
	}
	return &runRecorder{c: c, log: log, rec: RunRecord{Holder: c.Holder, Namespace: c.Namespace, Campaign: c.Name,
		Partition: c.Partition, Started: started}, asked: started}
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
	if err := WriteRun(wctx, r.c.Ledger.Store(), &r.rec); err != nil {
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
