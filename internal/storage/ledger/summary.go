package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// SummaryKey is the campaign's status as its partitions last read it, so
// a poll (the operator's, every campaign's, every interval) reads one
// small object instead of listing every chunk.
const SummaryKey = "summary.json"

// summaryRecord is summary.json.
type summaryRecord struct {
	// Taken is when the writer began the listing the status comes from,
	// by its clock: the later listing wins.
	Taken  time.Time `json:"taken"`
	Writer string    `json:"writer"`
	// PlanETag is the plan the status counts: a summary of another plan
	// (the campaign's location reused) is not this campaign's.
	PlanETag string  `json:"planETag"`
	Status   *Status `json:"status"`
}

// Summary is summary.json as a reader finds it.
type Summary struct {
	Status *Status
	Taken  time.Time
	Writer string
	ETag   string
}

// WriteSummary reads the status (one listing, as Status) and stores it in
// summary.json for pollers, unless a later listing's is there already.
// Partitions write it as chunks end; concurrent writers are merged by a
// conditional write (the later listing wins), so no update is lost to a
// race and none goes back in time by more than the clock skew between
// writers.
func (l *Ledger) WriteSummary(ctx context.Context, writer string) (*Status, error) {
	taken := l.now()
	s, err := l.Status(ctx)
	if err != nil {
		return nil, err
	}
	return s, l.putSummary(ctx, summaryRecord{Taken: taken, Writer: writer, PlanETag: l.planETag, Status: s})
}

// summaryTries bounds the conditional writes one summary makes: each lost
// race means another writer stored a summary just now.
const summaryTries = 3

func (l *Ledger) putSummary(ctx context.Context, rec summaryRecord) error {
	data, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", SummaryKey, err)
	}
	for range summaryTries {
		cur, etag, err := l.readSummary(ctx)
		if err != nil && !errors.Is(err, objstore.ErrNotExist) {
			return err
		}
		if cur != nil && cur.PlanETag == rec.PlanETag && !cur.Taken.Before(rec.Taken) {
			return nil // a later listing's status is there
		}
		if etag == "" {
			_, err = l.st.PutIfAbsent(ctx, SummaryKey, data)
		} else {
			_, err = l.st.PutIfMatch(ctx, SummaryKey, data, etag)
		}
		if !errors.Is(err, objstore.ErrPrecondition) {
			if err != nil {
				return fmt.Errorf("writing %s: %w", l.st.URL(SummaryKey), err)
			}
			return nil
		}
	}
	return nil // others keep writing it: theirs are as recent
}

// readSummary reads summary.json; an unreadable one is as good as absent
// (its ETag is returned, so it is replaced).
func (l *Ledger) readSummary(ctx context.Context) (*summaryRecord, string, error) {
	data, etag, err := l.st.GetBytes(ctx, SummaryKey)
	if err != nil {
		if errors.Is(err, objstore.ErrNotExist) {
			return nil, "", err
		}
		return nil, "", fmt.Errorf("reading %s: %w", l.st.URL(SummaryKey), err)
	}
	var rec summaryRecord
	if json.Unmarshal(data, &rec) != nil || rec.Status == nil {
		return nil, etag, nil
	}
	return &rec, etag, nil
}

// ReadSummary returns summary.json when it holds this plan's status taken
// less than maxAge ago (by the reader's clock, allowing the plan's clock
// skew), else nil: no partition wrote one (they predate it), or none has
// for maxAge (none runs), and the caller lists the chunks (Status)
// instead. Errors are the store's.
func (l *Ledger) ReadSummary(ctx context.Context, maxAge time.Duration) (*Summary, error) {
	rec, etag, err := l.readSummary(ctx)
	if errors.Is(err, objstore.ErrNotExist) || (err == nil && rec == nil) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	skew := time.Duration(l.policy().SkewSeconds) * time.Second
	if rec.PlanETag != l.planETag || l.now().Sub(rec.Taken) > maxAge+skew {
		return nil, nil
	}
	return &Summary{Status: rec.Status, Taken: rec.Taken, Writer: rec.Writer, ETag: etag}, nil
}

// SummaryFresh says whether summary.json holds this plan's status taken
// less than age ago, by this clock. A partition with no chunk ended since
// its last write leaves a fresh summary (another partition's) as it is, so
// a campaign's partitions list its chunks about once per age between
// them, not once each.
func (l *Ledger) SummaryFresh(ctx context.Context, age time.Duration) (bool, error) {
	rec, _, err := l.readSummary(ctx)
	switch {
	case errors.Is(err, objstore.ErrNotExist):
		return false, nil
	case err != nil || rec == nil:
		return false, err
	}
	return rec.PlanETag == l.planETag && l.now().Sub(rec.Taken) < age, nil
}
