package ledger

import (
	"context"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// Status is a campaign's progress, as the operator and the CLI show it.
// Chunks counts leaf chunks: split chunks count as their children.
type Status struct {
	Name      string `json:"name"`
	Chunks    int    `json:"chunks"`
	Committed int    `json:"committed"`
	Leased    int    `json:"leased"`
	Failed    int    `json:"failed"`
	Pending   int    `json:"pending"`
	Attempts  int    `json:"attempts"`
	Retries   int    `json:"retries"`
	// FailedAttempts are the attempts that ended without a result.
	FailedAttempts FailureKinds `json:"failedAttempts"`
	// StoppedAttempts ended because their partition was told to stop: not
	// failures, and counted toward no limit.
	StoppedAttempts int           `json:"stoppedAttempts,omitempty"`
	Queries         int           `json:"queries"`
	QueriesDone     int           `json:"queriesDone"`
	QueriesFailed   int           `json:"queriesFailed"`
	FailedQueries   []FailedQuery `json:"failedQueries,omitempty"`
	Missing         []Range       `json:"missing,omitempty"`
	// SearchedAlone are the chunks, split to isolate a failing query, that
	// cut through a BLAST+ batch: their queries are searched each alone,
	// not in the file's batches (docs/concepts.md).
	SearchedAlone []Range `json:"searchedAlone,omitempty"`
	// Problems are bad commits found (and voided) while reading.
	Problems []string `json:"problems,omitempty"`
	Complete bool     `json:"complete"`
	// Invalid is set once BLAST+ refused the campaign's search (a
	// configuration error, the same for every chunk): nothing more runs.
	Invalid *FailureReason `json:"invalid,omitempty"`
	// Sites is the progress of each site that worked the campaign, by name.
	Sites []SiteStatus `json:"sites,omitempty"`
}

// FailedQuery is a query given up on after its attempts ran out.
type FailedQuery struct {
	Query  int           `json:"query"`        // index in the queries file
	ID     string        `json:"id,omitempty"` // its FASTA id, as the engine reported it
	Reason FailureReason `json:"reason"`
}

// ReadStatus opens the campaign at st and reads its status.
func ReadStatus(ctx context.Context, st objstore.Store) (*Status, error) {
	l, err := Open(ctx, st, Options{})
	if err != nil {
		return nil, err
	}
	return l.Status(ctx)
}

// Status costs one List plus GETs of the small records that changed since
// this Ledger last read them.
func (l *Ledger) Status(ctx context.Context) (*Status, error) {
	s, _, err := l.status(ctx)
	return s, err
}

func (l *Ledger) status(ctx context.Context) (*Status, []leaf, error) {
	sc, err := l.scan(ctx)
	if err != nil {
		return nil, nil, err
	}
	leaves, objs := sc.leaves, sc.objs
	s := &Status{Name: l.plan.Name, Chunks: len(leaves), Queries: l.plan.Chunks[len(l.plan.Chunks)-1].End, Problems: sc.problems,
		Invalid: sc.invalid}
	sites := newSiteTally()
	leases := map[Range]*leaseRecord{} // of the leaves not decided
	for _, lf := range leaves {
		if lf.state != leafFailed && !l.plan.wholeBatches(lf.r) {
			s.SearchedAlone = append(s.SearchedAlone, lf.r)
		}
		switch lf.state {
		case leafCommitted:
			s.Committed++
			s.QueriesDone += lf.r.Len()
			sites.committed(lf.outcome, lf.r, l.letters(lf.r))
		case leafFailed:
			s.Failed++
			s.QueriesFailed += lf.r.Len()
			for q := lf.r.First; q < lf.r.End; q++ {
				s.FailedQueries = append(s.FailedQueries, FailedQuery{Query: q, ID: lf.outcome.Failure.QueryID, Reason: *lf.outcome.Failure})
			}
		default:
			s.Missing = append(s.Missing, lf.r)
			cur, _, err := l.readLease(ctx, lf)
			if err != nil {
				return nil, nil, err
			}
			leases[lf.r] = cur
			if cur != nil && l.live(cur) {
				s.Leased++
				sites.leased(cur.Site)
			} else {
				s.Pending++
			}
		}
	}
	// Chunks split or failed were given up on: none of their attempts runs.
	live := map[Range]bool{}
	for _, lf := range leaves {
		live[lf.r] = lf.state != leafFailed
	}
	for r, o := range objs {
		in, ok := o[attemptsName]
		if !ok {
			continue
		}
		att, _, err := l.readAttempts(ctx, r, in.ETag)
		if err != nil {
			return nil, nil, err
		}
		att = att.withLeaseStop(leases[r])
		s.Attempts += len(att.Attempts)
		sites.attempted(r, att)
		s.Retries += max(0, len(att.Attempts)-1)
		s.FailedAttempts.add(att, live[r])
		_, stopped, _ := att.ended(live[r])
		s.StoppedAttempts += stopped
	}
	s.Complete = len(s.Missing) == 0
	s.Sites = sites.list()
	return s, leaves, nil
}
