package report

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/internal/storage/runrecord"
)

// ErrNotPlanned: the location holds no plan, so there is nothing to report.
var ErrNotPlanned = errors.New("not planned yet")

// Meta is what the ledger does not know: the campaign's Kubernetes facts
// when there are any, and where the ledger is.
type Meta struct {
	Namespace, Name, Phase string
	// Location is the ledger's location as the user names it.
	Location  string
	Generated time.Time
}

// Report is everything one page shows, read at one moment.
type Report struct {
	Meta    Meta
	Plan    *ledger.Plan
	Status  *ledger.Status
	History []ledger.ChunkHistory
	Runs    []runrecord.RunRecord
}

// Load reads the campaign at st: its plan, status and attempts from the
// ledger, and its partitions' run records.
func Load(ctx context.Context, st objstore.Store, meta Meta) (*Report, error) {
	if meta.Location == "" {
		meta.Location = st.URL("")
	}
	if meta.Generated.IsZero() {
		meta.Generated = time.Now()
	}
	loc := meta.Location
	l, err := ledger.Open(ctx, st, ledger.Options{})
	if errors.Is(err, objstore.ErrNotExist) {
		return nil, fmt.Errorf("campaign has no plan at %s: %w", loc, ErrNotPlanned)
	}
	if err != nil {
		return nil, fmt.Errorf("opening the campaign's ledger at %s: %w", loc, err)
	}
	r := &Report{Meta: meta, Plan: l.Plan()}
	if r.Meta.Name == "" {
		r.Meta.Name = r.Plan.Name
	}
	if r.Status, err = l.Status(ctx); err != nil {
		return nil, fmt.Errorf("reading the campaign's status at %s: %w", loc, err)
	}
	if r.History, err = l.History(ctx); err != nil {
		return nil, fmt.Errorf("reading the campaign's attempts at %s: %w", loc, err)
	}
	if r.Runs, err = runrecord.ReadRuns(ctx, st); err != nil {
		return nil, fmt.Errorf("reading the campaign's run records at %s: %w", loc, err)
	}
	return r, nil
}
