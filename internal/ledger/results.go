package ledger

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/blastfleet/blastfleet/internal/objstore"
)

// Keys of the assembled output and its done marker.
const (
	ResultKey    = "result"
	assembledKey = "assembled.json"
)

type assembledRecord struct {
	Key     string   `json:"key"`
	Size    int64    `json:"size"`
	Results []string `json:"results"` // the chunk results composed, in order
	Token   string   `json:"token"`
}

// complete returns the committed leaves in query order, or an
// *IncompleteError naming the missing ranges.
func (l *Ledger) complete(ctx context.Context) ([]leaf, error) {
	s, leaves, err := l.status(ctx)
	if err != nil {
		return nil, err
	}
	if !s.Complete {
		return nil, &IncompleteError{Missing: s.Missing}
	}
	var out []leaf
	for _, lf := range leaves {
		if lf.state == leafCommitted {
			out = append(out, lf)
		}
	}
	return out, nil
}

// Assemble composes the committed results, in query order, into ResultKey
// once the campaign is complete, and marks it done; later calls find the
// marker and return at once. Every result's SHA-256 is checked first: a
// bad one is voided (the chunk will be redone) and ErrIncomplete returned.
func (l *Ledger) Assemble(ctx context.Context) (string, error) {
	if _, _, err := l.st.GetBytes(ctx, assembledKey); err == nil {
		return ResultKey, nil
	} else if !errors.Is(err, objstore.ErrNotExist) {
		return "", fmt.Errorf("assembling results: %w", err)
	}
	leaves, err := l.complete(ctx)
	if err != nil {
		return "", err
	}
	rec := assembledRecord{Key: ResultKey, Token: newToken()}
	for _, lf := range leaves {
		if err := l.verifyResult(ctx, lf, io.Discard); err != nil {
			return "", err
		}
		rec.Results = append(rec.Results, lf.outcome.ResultKey)
		rec.Size += lf.outcome.Size
	}
	if len(rec.Results) == 0 { // every query failed: an empty result
		err = l.st.Put(ctx, ResultKey, strings.NewReader(""), 0)
	} else {
		err = l.st.Compose(ctx, ResultKey, rec.Results)
	}
	if err != nil {
		return "", fmt.Errorf("assembling results: %w", err)
	}
	// Two assemblers compose the same bytes; only the marker needs one.
	if _, err := l.st.PutIfAbsent(ctx, assembledKey, encode(rec)); err != nil && !errors.Is(err, objstore.ErrPrecondition) {
		return "", fmt.Errorf("assembling results: %w", err)
	}
	return ResultKey, nil
}

// StreamResults writes the committed results to w in query order, checking
// each against its commit as it goes; it refuses with an *IncompleteError
// (ErrIncomplete) while chunks are missing. A result that fails its check
// is voided for redoing, and the error says so; w then holds a prefix.
func StreamResults(ctx context.Context, st objstore.Store, w io.Writer) error {
	l, err := Open(ctx, st, Options{})
	if err != nil {
		return err
	}
	return l.StreamResults(ctx, w)
}

// StreamResults is the package function on an open Ledger.
func (l *Ledger) StreamResults(ctx context.Context, w io.Writer) error {
	leaves, err := l.complete(ctx)
	if err != nil {
		return err
	}
	for _, lf := range leaves {
		if err := l.verifyResult(ctx, lf, w); err != nil {
			return err
		}
	}
	return nil
}

// verifyResult copies a committed result to w while checking its size and
// SHA-256; a mismatch voids the commit.
func (l *Ledger) verifyResult(ctx context.Context, lf leaf, w io.Writer) error {
	rec := lf.outcome
	rc, err := l.st.Get(ctx, rec.ResultKey)
	problem := ""
	if errors.Is(err, objstore.ErrNotExist) {
		problem = fmt.Sprintf("result %s is missing", rec.ResultKey)
	} else if err != nil {
		return fmt.Errorf("reading result of chunk %s: %w", lf.r, err)
	} else {
		h := sha256.New()
		n, err := io.Copy(io.MultiWriter(w, h), rc)
		rc.Close()
		if err != nil {
			return fmt.Errorf("reading result of chunk %s: %w", lf.r, err)
		}
		if sum := hex.EncodeToString(h.Sum(nil)); n != rec.Size || sum != rec.SHA256 {
			problem = fmt.Sprintf("result %s has %d bytes with sha256 %s, commit marker says %d bytes with %s", rec.ResultKey, n, sum, rec.Size, rec.SHA256)
		}
	}
	if problem == "" {
		return nil
	}
	// The marker's ETag is the cached one the scan just used.
	key := lf.r.dir() + commitName
	l.mu.Lock()
	etag := l.cache[key].etag
	l.mu.Unlock()
	if _, err := l.void(ctx, lf.r, etag, rec, problem); err != nil && !errors.Is(err, objstore.ErrPrecondition) {
		return err
	}
	return fmt.Errorf("chunk %s: %s; voided, it will be redone: %w", lf.r, problem, &IncompleteError{Missing: []Range{lf.r}})
}

// Assembled reports whether the campaign's result has been assembled.
func (l *Ledger) Assembled(ctx context.Context) (bool, error) {
	_, _, err := l.st.GetBytes(ctx, assembledKey)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, objstore.ErrNotExist):
		return false, nil
	}
	return false, fmt.Errorf("reading %s: %w", assembledKey, err)
}
