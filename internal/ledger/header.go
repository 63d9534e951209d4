package ledger

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
)

// headerKey holds the assembled result's header, when its format has one
// made from the whole output (SAM's lists the queries with hits).
const headerKey = "result.header"

// SetHeader makes assembly put header(the chunks' results, in order) in
// front of the results: the header of a format that depends on the
// whole output. The header is made again by any assembler, from the
// same results, so it is the same bytes.
func (l *Ledger) SetHeader(header func(io.Reader) ([]byte, error)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.header = header
}

// assembleHeader makes the header of results (nil when the format has
// none or it is empty) and puts it at headerKey.
func (l *Ledger) assembleHeader(ctx context.Context, results []string) ([]byte, error) {
	l.mu.Lock()
	header := l.header
	l.mu.Unlock()
	if header == nil || len(results) == 0 {
		return nil, nil
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
