package ledger

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/bio/blastdoc"
)

// headerKey holds the assembled result's header, when its format has one
// made from the whole output (SAM's lists the queries with hits).
const headerKey = "result.header"

// samInputsKey holds what a SAM header is made from besides the results:
// written by the partitions, read by whichever assembles (a partition or
// the operator's assembly Job), so every assembler makes the same bytes.
const samInputsKey = "result.sam-inputs.json"

// SAMInputs are a SAM result's header inputs: its @PG line and every
// query's length, in the file's order.
type SAMInputs struct {
	PG      string `json:"pg"`
	Lengths []int  `json:"lengths"`
}

// PutSAMInputs records a SAM result's header inputs. Every partition
// writes the same bytes (the plan fixes them), so a rewrite is harmless.
func (l *Ledger) PutSAMInputs(ctx context.Context, in SAMInputs) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	if err := l.st.Put(ctx, samInputsKey, bytes.NewReader(b), int64(len(b))); err != nil {
		return fmt.Errorf("recording the SAM header's inputs: %w", err)
	}
	return nil
}

// headerMaker is how the result's header is made from the results, nil
// when its format has none.
func (l *Ledger) headerMaker(ctx context.Context) (func(io.Reader) ([]byte, error), error) {
	if l.plan.Search.Format == nil || l.plan.Search.Format.Code != blast.SAM {
		return nil, nil
	}
	rc, err := l.st.Get(ctx, samInputsKey)
	if err != nil {
		return nil, fmt.Errorf("reading the SAM header's inputs %s: %w", l.st.URL(samInputsKey), err)
	}
	defer rc.Close()
	var in SAMInputs
	if err := json.NewDecoder(rc).Decode(&in); err != nil {
		return nil, fmt.Errorf("reading the SAM header's inputs %s: %w", l.st.URL(samInputsKey), err)
	}
	return func(body io.Reader) ([]byte, error) { return blastdoc.SAMHeader(body, in.Lengths, []byte(in.PG)) }, nil
}

// assembleHeader makes the header of results (nil when the format has
// none or it is empty) and puts it at headerKey.
func (l *Ledger) assembleHeader(ctx context.Context, results []string) ([]byte, error) {
	header, err := l.headerMaker(ctx)
	if err != nil || header == nil || len(results) == 0 {
		return nil, err
	}
	r := &resultsReader{ctx: ctx, l: l, keys: results}
	defer r.close()
	h, err := header(r)
	if err != nil {
		return nil, fmt.Errorf("making the result's header: %w", err)
	}
	if len(h) == 0 {
		return nil, nil
	}
	if err := l.st.Put(ctx, headerKey, bytes.NewReader(h), int64(len(h))); err != nil {
		return nil, fmt.Errorf("putting the result's header: %w", err)
	}
	return h, nil
}

// resultsReader reads results one after another.
type resultsReader struct {
	ctx  context.Context
	l    *Ledger
	keys []string
	cur  io.ReadCloser
}

func (r *resultsReader) Read(p []byte) (int, error) {
	for {
		if r.cur == nil {
			if len(r.keys) == 0 {
				return 0, io.EOF
			}
			rc, err := r.l.st.Get(r.ctx, r.keys[0])
			if err != nil {
				return 0, fmt.Errorf("reading %s: %w", strings.TrimSpace(r.l.st.URL(r.keys[0])), err)
			}
			r.cur, r.keys = rc, r.keys[1:]
		}
		n, err := r.cur.Read(p)
		if err == io.EOF {
			r.close()
			if n == 0 {
				continue
			}
			err = nil
		}
		return n, err
	}
}

func (r *resultsReader) close() {
	if r.cur != nil {
		r.cur.Close()
		r.cur = nil
	}
}
