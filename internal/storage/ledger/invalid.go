package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// invalidKey marks a campaign whose search BLAST+ refuses: a configuration
// error is the same for every chunk, so retrying or bisecting it would only
// burn attempts. It lives beside the chunks so the scan that leases them
// sees it without another request.
const invalidKey = chunksDir + "invalid.json"

// ErrInvalidSearch: the campaign's search is refused by BLAST+; no chunk
// will be leased again. errors.As an *InvalidSearchError for the reason.
var ErrInvalidSearch = errors.New("the campaign's search is invalid")

// InvalidSearchError carries the first recorded configuration error.
type InvalidSearchError struct{ Reason FailureReason }

func (e *InvalidSearchError) Error() string {
	return fmt.Sprintf("%s: %s", ErrInvalidSearch, e.Reason.String())
}

func (e *InvalidSearchError) Unwrap() error { return ErrInvalidSearch }

type invalidRecord struct {
	Reason FailureReason `json:"reason"`
	Holder string        `json:"holder"`
	At     time.Time     `json:"at"`
}

// MarkInvalid records, once, that BLAST+ refuses the campaign's search (or
// that its database changed since planning, reason.Database): every
// partition stops leasing, and the operator fails the campaign with
// the reason. The first record wins; later ones are no-ops.
func (l *Ledger) MarkInvalid(ctx context.Context, holder string, reason FailureReason) error {
	rec := invalidRecord{Reason: reason, Holder: holder, At: l.now().UTC()}
	if _, err := l.st.PutIfAbsent(ctx, invalidKey, encode(rec)); err != nil && !errors.Is(err, objstore.ErrPrecondition) {
		return fmt.Errorf("marking the search invalid: %w", err)
	}
	return nil
}

// invalid reads the invalid marker a listing showed, if any.
func (l *Ledger) invalid(ctx context.Context, listed *objstore.Info) (*FailureReason, error) {
	if listed == nil {
		return nil, nil
	}
	data, _, err := l.readSmall(ctx, invalidKey, listed.ETag)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", l.st.URL(invalidKey), err)
	}
	var rec invalidRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("reading %s: %w", l.st.URL(invalidKey), err)
	}
	return &rec.Reason, nil
}
