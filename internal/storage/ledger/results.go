package ledger

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// Keys of the assembled output and its done marker.
const (
	ResultKey    = "result"
	assembledKey = "assembled.json"
)

type assembledRecord struct {
	Key  string `json:"key"`
	Size int64  `json:"size"`
	// SHA256 of the whole result, computed from the verified parts and
	// checked against the composed object before this record is written
	// (empty in records written before it was kept).
	SHA256  string   `json:"sha256,omitempty"`
	Results []string `json:"results"` // the chunk results composed, in order
	// Header is the header put in front of them (SetHeader), if any.
	Header string `json:"header,omitempty"`
	Token  string `json:"token"`
}

// AssembledResult is the campaign's assembled result, as its done marker
// records it.
type AssembledResult struct {
	Key    string
	Size   int64
	SHA256 string // empty for results assembled before it was recorded
	// Header is the key of the header in front of the chunks' results
	// (SetHeader), if any.
	Header string
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

// assemble composes the committed results, in query order, into
// ResultKey and writes the done marker; its caller holds the assembly
// lease. Every result's SHA-256 is checked first: a bad one is voided
// (the chunk will be redone) and ErrIncomplete returned.
func (l *Ledger) assemble(ctx context.Context) (string, error) {
	leaves, err := l.complete(ctx)
	if err != nil {
		return "", err
	}
	rec := assembledRecord{Key: ResultKey, Token: newToken()}
	whole := sha256.New()
	var results []string
	for _, lf := range leaves {
		results = append(results, lf.outcome.ResultKey)
	}
	header, err := l.assembleHeader(ctx, results)
	if err != nil {
		return "", err
	}
	srcs := []string{}
	if len(header) > 0 {
		whole.Write(header)
		rec.Header, rec.Size = headerKey, int64(len(header))
		srcs = append(srcs, headerKey)
	}
	for _, lf := range leaves {
		if err := l.verifyResult(ctx, lf, whole, true); err != nil {
			return "", err
		}
		rec.Results = append(rec.Results, lf.outcome.ResultKey)
		rec.Size += lf.outcome.Size
	}
	rec.SHA256 = hex.EncodeToString(whole.Sum(nil))
	if srcs = append(srcs, rec.Results...); len(srcs) == 0 { // every query failed: an empty result
		err = l.st.Put(ctx, ResultKey, strings.NewReader(""), 0)
	} else {
		err = l.st.Compose(ctx, ResultKey, srcs)
	}
	if err != nil {
		return "", fmt.Errorf("assembling results: %w", err)
	}
	if err := l.checkComposed(ctx, rec); err != nil {
		return "", err
	}
	// An assembler whose lease was taken over may still compose the
	// same bytes; only the marker needs one.
	if _, err := l.st.PutIfAbsent(ctx, assembledKey, encode(rec)); err != nil && !errors.Is(err, objstore.ErrPrecondition) {
		return "", fmt.Errorf("assembling results: %w", err)
	}
	// A store may acknowledge a write and lose it: without its marker the
	// campaign is not done, whatever this assembler was told.
	if done, err := l.Assembled(ctx); err != nil || !done {
		if err == nil {
			err = fmt.Errorf("the store acknowledged %s but does not hold it", l.st.URL(assembledKey))
		}
		return "", fmt.Errorf("assembling results: %w; assembly will be retried", err)
	}
	return ResultKey, nil
}

// checkComposed reads the composed result back: its size and SHA-256 must
// be its verified parts'. A store that composed it wrong (or a part that
// changed in between) gets it deleted, and no done marker.
func (l *Ledger) checkComposed(ctx context.Context, rec assembledRecord) error {
	rc, err := l.st.Get(ctx, ResultKey)
	if err != nil {
		return fmt.Errorf("checking the assembled result: %w", err)
	}
	h := sha256.New()
	n, err := io.Copy(h, rc)
	rc.Close()
	if err != nil {
		return fmt.Errorf("checking the assembled result: %w", err)
	}
	if sum := hex.EncodeToString(h.Sum(nil)); n != rec.Size || sum != rec.SHA256 {
		_ = l.st.Delete(ctx, ResultKey)
		return fmt.Errorf("the assembled result %s has %d bytes with sha256 %s, its %d verified parts %d bytes with %s; deleted, assembly will be retried",
			l.st.URL(ResultKey), n, sum, len(rec.Results)+min(len(rec.Header), 1), rec.Size, rec.SHA256)
	}
	return nil
}

// AssembledResult returns the assembled result's record, or nil before
// assembly.
func (l *Ledger) AssembledResult(ctx context.Context) (*AssembledResult, error) {
	data, _, err := l.st.GetBytes(ctx, assembledKey)
	if errors.Is(err, objstore.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", assembledKey, err)
	}
	var rec assembledRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("%s: %w", l.st.URL(assembledKey), err)
	}
	return &AssembledResult{Key: rec.Key, Size: rec.Size, SHA256: rec.SHA256, Header: rec.Header}, nil
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

// StreamResults is the package function on an open Ledger. Once the
// result is assembled, the whole stream must also match its record's size
// and SHA-256 (the hash the campaign's status publishes).
func (l *Ledger) StreamResults(ctx context.Context, w io.Writer) error {
	leaves, err := l.complete(ctx)
	if err != nil {
		return err
	}
	asm, err := l.AssembledResult(ctx)
	if err != nil {
		return err
	}
	n, sum, err := l.copyResults(ctx, asm, leaves, w, true)
	if err != nil {
		return err
	}
	if asm != nil && asm.SHA256 != "" {
		if n != asm.Size || sum != asm.SHA256 {
			return fmt.Errorf("the results (%d bytes, sha256 %s) differ from the assembled result's record %s (%d bytes, sha256 %s)",
				n, sum, l.st.URL(assembledKey), asm.Size, asm.SHA256)
		}
	}
	return nil
}

// Expected is a record of a campaign's whole result kept outside its
// store, which whoever can write the store cannot rewrite: the
// SearchCampaign's status.resultSHA256 and resultBytes.
type Expected struct {
	SHA256 string
	Size   int64
	From   string // names the record in errors, e.g. "SearchCampaign team-a/x status.resultSHA256"
}

// ReadResults is StreamResults for a reader that owns nothing of the
// campaign (the results commands). The whole stream must match want when
// given, else the assembled result's record in the store; with neither it
// refuses rather than skip the check. A result that fails its check is
// reported and left alone: voiding it (which removes a finished
// campaign's part) is for the partitions' own assembly.
func (l *Ledger) ReadResults(ctx context.Context, w io.Writer, want *Expected) error {
	leaves, err := l.complete(ctx)
	if err != nil {
		return err
	}
	asm, err := l.AssembledResult(ctx)
	if err != nil {
		return err
	}
	if want == nil {
		if asm == nil || asm.SHA256 == "" {
			return fmt.Errorf("%s holds no record of the whole result's SHA-256 to check the results against (not assembled yet: retry once the campaign is)", l.st.URL(assembledKey))
		}
		want = &Expected{SHA256: asm.SHA256, Size: asm.Size, From: "the assembled result's record " + l.st.URL(assembledKey)}
	}
	n, sum, err := l.copyResults(ctx, asm, leaves, w, false)
	if err != nil {
		return err
	}
	if n != want.Size || sum != want.SHA256 {
		return fmt.Errorf("the results (%d bytes, sha256 %s) differ from %s (%d bytes, sha256 %s)", n, sum, want.From, want.Size, want.SHA256)
	}
	return nil
}

// copyResults copies the leaves' results to w, after the assembled
// result's header if it has one (asm may be nil: not assembled), checking
// each, and returns the bytes and SHA-256 of the whole; void says whether
// a bad result is voided for redoing.
func (l *Ledger) copyResults(ctx context.Context, asm *AssembledResult, leaves []leaf, w io.Writer, void bool) (int64, string, error) {
	h := sha256.New()
	var n int64
	if asm != nil && asm.Header != "" {
		rc, err := l.st.Get(ctx, asm.Header)
		if err != nil {
			return 0, "", fmt.Errorf("reading the result's header: %w", err)
		}
		n, err = io.Copy(io.MultiWriter(w, h), rc)
		rc.Close()
		if err != nil {
			return 0, "", fmt.Errorf("reading the result's header: %w", err)
		}
	}
	for _, lf := range leaves {
		if err := l.verifyResult(ctx, lf, io.MultiWriter(w, h), void); err != nil {
			return n, "", err
		}
		n += lf.outcome.Size
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

// verifyResult copies a committed result to w while checking its size and
// SHA-256; a mismatch voids the commit when void is set.
func (l *Ledger) verifyResult(ctx context.Context, lf leaf, w io.Writer, void bool) error {
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
	if !void {
		return fmt.Errorf("chunk %s: %s (left as it is: readers change nothing in the campaign)", lf.r, problem)
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
