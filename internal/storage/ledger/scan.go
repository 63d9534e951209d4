package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// chunkObjs is what one List shows of a chunk: object name → Info.
type chunkObjs map[string]objstore.Info

// listing is what one List of chunks/ shows: each chunk's objects, and the
// campaign's invalid marker when a partition wrote one.
type listing struct {
	chunks  map[Range]chunkObjs
	invalid *objstore.Info
}

// list reads the whole chunk state's index in one List of chunks/.
func (l *Ledger) list(ctx context.Context) (listing, error) {
	infos, err := l.st.List(ctx, chunksDir)
	if err != nil {
		return listing{}, fmt.Errorf("reading ledger: %w", err)
	}
	out := listing{chunks: map[Range]chunkObjs{}}
	for _, in := range infos {
		if in.Key == invalidKey {
			out.invalid = &in
			continue
		}
		r, name, ok := parseChunkKey(in.Key)
		if !ok {
			continue
		}
		if out.chunks[r] == nil {
			out.chunks[r] = chunkObjs{}
		}
		out.chunks[r][name] = in
	}
	return out, nil
}

type leafState int

const (
	leafOpen leafState = iota // undecided: pending or leased
	leafCommitted
	leafFailed
)

// leaf is a chunk that is not split: the unit of leasing now.
type leaf struct {
	r     Range
	objs  chunkObjs
	state leafState
	// outcome is commit.json when committed or failed.
	outcome *outcomeRecord
	// decisionETag is commit.json's ETag when it holds a void record (the
	// next decision replaces it by If-Match), "" when it is absent.
	decisionETag string
}

// scanned is one scan of the ledger.
type scanned struct {
	leaves   []leaf
	objs     map[Range]chunkObjs
	problems []string
	invalid  *FailureReason // set once BLAST+ refused the search
}

// scan lists the ledger and expands the plan's chunks through their splits
// into leaves, in query order. Problems found (corrupt markers, bad
// results) are voided on the way and reported.
func (l *Ledger) scan(ctx context.Context) (*scanned, error) {
	ls, err := l.list(ctx)
	if err != nil {
		return nil, err
	}
	sc := &scanned{objs: ls.chunks}
	if sc.invalid, err = l.invalid(ctx, ls.invalid); err != nil {
		return nil, err
	}
	for _, c := range l.plan.Chunks {
		if err := l.expand(ctx, c.Range(), ls.chunks, &sc.leaves, &sc.problems); err != nil {
			return nil, err
		}
	}
	return sc, nil
}

// maxDecisionReads bounds re-reading a commit marker that keeps changing
// under us; each change is someone else's progress.
const maxDecisionReads = 10

func (l *Ledger) expand(ctx context.Context, r Range, objs map[Range]chunkObjs, out *[]leaf, problems *[]string) error {
	o := objs[r]
	key := r.dir() + commitName
	info, ok := o[commitName]
	listed := info.ETag
	for range maxDecisionReads {
		if !ok {
			*out = append(*out, leaf{r: r, objs: o})
			return nil
		}
		data, etag, err := l.readSmall(ctx, key, listed)
		if errors.Is(err, objstore.ErrNotExist) {
			ok = false
			continue
		}
		if err != nil {
			return fmt.Errorf("reading chunk %s: %w", r, err)
		}
		rec, problem := l.plan.parseOutcome(r, data)
		if problem == "" && rec.Outcome == outcomeCommitted {
			problem = l.checkResult(ctx, r, o, rec)
		}
		if problem != "" {
			*problems = append(*problems, fmt.Sprintf("chunk %s: %s", r, problem))
			if _, err := l.void(ctx, r, etag, rec, problem); err != nil && !errors.Is(err, objstore.ErrPrecondition) {
				return err
			}
			listed = "" // re-read whatever is there now
			continue
		}
		switch rec.Outcome {
		case outcomeSplit:
			for _, c := range rec.Children {
				if err := l.expand(ctx, c, objs, out, problems); err != nil {
					return err
				}
			}
		case outcomeVoid:
			*out = append(*out, leaf{r: r, objs: o, decisionETag: etag})
		case outcomeCommitted:
			*out = append(*out, leaf{r: r, objs: o, state: leafCommitted, outcome: rec})
		case outcomeFailed:
			*out = append(*out, leaf{r: r, objs: o, state: leafFailed, outcome: rec})
		}
		return nil
	}
	return fmt.Errorf("chunk %s: commit marker kept changing while read", r)
}

// parseOutcome decodes commit.json; a problem string means it is corrupt
// and must be voided.
func (p *Plan) parseOutcome(r Range, data []byte) (*outcomeRecord, string) {
	var rec outcomeRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Sprintf("corrupt commit marker: %v", err)
	}
	switch rec.Outcome {
	case outcomeCommitted:
		if !strings.HasPrefix(rec.ResultKey, r.dir()+resultPrefix) || len(rec.SHA256) != 64 {
			return nil, fmt.Sprintf("corrupt commit marker: result key %q, sha256 %q", rec.ResultKey, rec.SHA256)
		}
	case outcomeSplit:
		if h := p.halves(r); len(rec.Children) != 2 || rec.Children[0] != h[0] || rec.Children[1] != h[1] || r.Len() < 2 {
			return nil, fmt.Sprintf("corrupt commit marker: split into %v", rec.Children)
		}
	case outcomeFailed, outcomeVoid:
	default:
		return nil, fmt.Sprintf("corrupt commit marker: outcome %q", rec.Outcome)
	}
	return &rec, ""
}

// checkResult compares a commit with its result object's size, from the
// listing or, when that disagrees, a fresh Stat (the listing may predate
// the result). SHA-256 is checked where results are read (verifyResult).
func (l *Ledger) checkResult(ctx context.Context, r Range, o chunkObjs, rec *outcomeRecord) string {
	if in, ok := o[strings.TrimPrefix(rec.ResultKey, r.dir())]; ok && in.Size == rec.Size {
		return ""
	}
	in, err := l.st.Stat(ctx, rec.ResultKey)
	switch {
	case errors.Is(err, objstore.ErrNotExist):
		return fmt.Sprintf("result %s is missing", rec.ResultKey)
	case err != nil:
		return "" // cannot tell now; not a reason to redo work
	case in.Size != rec.Size:
		return fmt.Sprintf("result %s has %d bytes, commit marker says %d", rec.ResultKey, in.Size, rec.Size)
	}
	return ""
}

// void replaces a bad commit marker (ETag etag) by a void record, by CAS
// so that only the version found bad is voided and never a newer valid
// commit, then deletes the voided result (result keys are unique per
// attempt, so nothing valid can share it). The chunk is leasable again.
func (l *Ledger) void(ctx context.Context, r Range, etag string, old *outcomeRecord, reason string) (string, error) {
	rec := outcomeRecord{Outcome: outcomeVoid, Void: true, At: l.now().UTC(), Token: newToken(), Reason: reason}
	if old != nil {
		rec.VoidedKey, rec.VoidedHash = old.ResultKey, old.SHA256
	}
	key := r.dir() + commitName
	data := encode(rec)
	newETag, err := l.st.PutIfMatch(ctx, key, data, etag)
	if err != nil {
		if e, won := l.casWon(ctx, key, data); won {
			newETag = e
		} else {
			return "", fmt.Errorf("voiding chunk %s: %w", r, err)
		}
	}
	l.remember(key, newETag, data)
	if rec.VoidedKey != "" {
		l.st.Delete(ctx, rec.VoidedKey) // best effort: garbage otherwise
	}
	return newETag, nil
}
