package runrecord

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
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
	Site      string    `json:"site,omitempty"`
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

// CoreSeconds is what the run held by now: its worker slots for its wall
// time, from its start to its record's last update, or to now for a run
// still going (its record updated within liveRecord); 0 for a record
// without a summary.
func (r RunRecord) CoreSeconds(now time.Time) float64 {
	end := r.Updated
	if r.State == RunRunning && now.After(end) && now.Sub(end) < liveRecord {
		end = now
	}
	if r.Summary == nil || r.Summary.Slots <= 0 || !end.After(r.Started) {
		return 0
	}
	return float64(r.Summary.Slots) * end.Sub(r.Started).Seconds()
}

// liveRecord bounds the age of a running run's record: the master
// rewrites it every few seconds, so an older one is a run that died
// without saying so, and its time ends at its last update.
const liveRecord = 2 * time.Minute

// Cost is what a campaign's partition runs held: core-seconds in all and
// by site ("" for runs that named none).
type Cost struct {
	CoreSeconds float64
	Sites       map[string]float64
}

// CostOf adds up the runs' core-seconds by now.
func CostOf(runs []RunRecord, now time.Time) Cost {
	c := Cost{Sites: map[string]float64{}}
	for _, r := range runs {
		s := r.CoreSeconds(now)
		c.CoreSeconds += s
		c.Sites[r.Site] += s
	}
	return c
}
