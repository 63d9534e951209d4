package ledger

import (
	"cmp"
	"context"
	"slices"
	"time"
)

// Attempt is one try at a chunk, as its attempts record keeps it.
type Attempt struct {
	Number    int            `json:"number"`
	Holder    string         `json:"holder"`
	StartedAt time.Time      `json:"startedAt"`
	Failure   *FailureReason `json:"failure,omitempty"`
}

// ChunkHistory is every attempt made at one chunk (split chunks and their
// children appear separately), for reports.
type ChunkHistory struct {
	Range    Range     `json:"range"`
	Attempts []Attempt `json:"attempts"`
}

// History reads every chunk's attempts, in query order. It costs one List
// plus one GET per chunk that was ever leased, so it is for reports, not
// for a polling loop.
func (l *Ledger) History(ctx context.Context) ([]ChunkHistory, error) {
	ls, err := l.list(ctx)
	if err != nil {
		return nil, err
	}
	var out []ChunkHistory
	for r, o := range ls.chunks {
		info, ok := o[attemptsName]
		if !ok {
			continue
		}
		rec, _, err := l.readAttempts(ctx, r, info.ETag)
		if err != nil {
			return nil, err
		}
		h := ChunkHistory{Range: r}
		for _, a := range rec.Attempts {
			h.Attempts = append(h.Attempts, Attempt{Number: a.Number, Holder: a.Holder, StartedAt: a.StartedAt, Failure: a.Failure})
		}
		out = append(out, h)
	}
	// Query order; a split chunk before its children.
	slices.SortFunc(out, func(a, b ChunkHistory) int {
		return cmp.Or(cmp.Compare(a.Range.First, b.Range.First), cmp.Compare(b.Range.End, a.Range.End))
	})
	return out, nil
}
