package ledger

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// ResultKey is where this attempt's result goes: unique per attempt, so a
// loser's upload never touches the winner's.
func (ls *Lease) ResultKey() string { return resultKey(ls.Range, ls.Holder, ls.Attempt) }

// resultKey is where attempt n of chunk r by holder uploads its result.
func resultKey(r Range, holder string, n int) string {
	return fmt.Sprintf("%s%s%s-%d", r.dir(), resultPrefix, safeName(holder), n)
}

// Commit uploads the chunk's result (size -1 if unknown; a known size
// makes it one request) and then creates commit.json with its size and
// SHA-256. The lease need not still be valid: the commit marker alone
// decides, so a slow holder finishing after a takeover may still win.
// If the chunk was decided first, our result is deleted and the error is
// ErrAlreadyCommitted. The lease is released either way.
func (ls *Lease) Commit(ctx context.Context, r io.Reader, size int64) error {
	key := ls.ResultKey()
	h := sha256.New()
	cw := &countWriter{}
	if err := ls.l.st.Put(ctx, key, io.TeeReader(r, io.MultiWriter(h, cw)), size); err != nil {
		return fmt.Errorf("committing chunk %s: %w", ls.Range, err)
	}
	return ls.commitStored(ctx, cw.n, hex.EncodeToString(h.Sum(nil)))
}

// CommitUploaded commits a result that was already written to ResultKey
// by others (the engine's writers upload parts of it in parallel): it
// reads the object back for its size and SHA-256, then decides as Commit.
func (ls *Lease) CommitUploaded(ctx context.Context) error {
	key := ls.ResultKey()
	rc, err := ls.l.st.Get(ctx, key)
	if err != nil {
		return fmt.Errorf("committing chunk %s: %w", ls.Range, err)
	}
	defer rc.Close()
	h := sha256.New()
	n, err := io.Copy(h, rc)
	if err != nil {
		return fmt.Errorf("committing chunk %s: reading %s: %w", ls.Range, key, err)
	}
	return ls.commitStored(ctx, n, hex.EncodeToString(h.Sum(nil)))
}

func (ls *Lease) commitStored(ctx context.Context, size int64, sum string) error {
	l := ls.l
	key := ls.ResultKey()
	if err := l.checkPlan(ctx); err != nil {
		l.st.Delete(ctx, key)
		return fmt.Errorf("committing chunk %s: %w", ls.Range, err)
	}
	rec := outcomeRecord{
		Outcome: outcomeCommitted, At: l.now().UTC(), Token: newToken(),
		ResultKey: key, Size: size, SHA256: sum,
		Holder: ls.Holder, Site: l.site, Attempt: ls.Attempt,
	}
	err := l.decideKept(ctx, ls.Range, encode(rec))
	if errors.Is(err, ErrAlreadyCommitted) {
		l.st.Delete(ctx, key)
	}
	ls.Release(ctx)
	return err
}

// maxLostDecisions bounds writing a decision again that the store
// acknowledged and then did not keep.
const maxLostDecisions = 5

// decideKept is decide, then a read of commit.json: a store may
// acknowledge a write and lose it, and a commit marker lost would have
// the chunk searched again, here or elsewhere. One GET per decision
// finds the loss now, while the result is still there, and writes the
// marker again (a decision taken meanwhile by another still wins).
func (l *Ledger) decideKept(ctx context.Context, r Range, data []byte) error {
	for range maxLostDecisions {
		if err := l.decide(ctx, r, data); err != nil {
			return err
		}
		if _, kept := holds(ctx, l.st, r.dir()+commitName, data); kept {
			return nil
		}
	}
	return fmt.Errorf("committing chunk %s: the store acknowledged the commit marker %d times and kept none of them", r, maxLostDecisions)
}

// decide creates commit.json, or replaces a void one by CAS; a corrupt one
// is voided first. Any other existing outcome means someone decided first.
func (l *Ledger) decide(ctx context.Context, r Range, data []byte) error {
	key := r.dir() + commitName
	etag := "" // absent
	for range maxDecisionReads {
		_, err := l.putCAS(ctx, key, data, etag)
		if err == nil {
			return nil
		}
		if !errors.Is(err, objstore.ErrPrecondition) {
			return fmt.Errorf("committing chunk %s: %w", r, err)
		}
		cur, curETag, err := l.st.GetBytes(ctx, key)
		if errors.Is(err, objstore.ErrNotExist) {
			etag = ""
			continue
		}
		if err != nil {
			return fmt.Errorf("committing chunk %s: %w", r, err)
		}
		rec, problem := l.plan.parseOutcome(r, cur)
		switch {
		case problem != "":
			if etag, err = l.void(ctx, r, curETag, nil, problem); err != nil && !errors.Is(err, objstore.ErrPrecondition) {
				return err
			}
		case rec.Outcome == outcomeVoid:
			etag = curETag
		default:
			return fmt.Errorf("chunk %s: %w (%s by %s, attempt %d)", r, ErrAlreadyCommitted, rec.Outcome, rec.Holder, rec.Attempt)
		}
	}
	return fmt.Errorf("committing chunk %s: commit marker kept changing", r)
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}
