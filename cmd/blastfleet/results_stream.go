package main

import (
	"bufio"
	"context"
	"errors"
	"io"

	"github.com/blastfleet/blastfleet/internal/ledger"
)

// streamResults writes a complete ledger's results to the file output
// (atomically), or to stdout when output is empty, and returns the bytes
// written. A chunk voided since the caller checked the status comes back
// as missing ranges rather than an error.
func streamResults(ctx context.Context, stdout io.Writer, l *ledger.Ledger, output string) (int64, []ledger.Range, error) {
	var n int64
	var err error
	if output == "" {
		bw := bufio.NewWriterSize(stdout, 1<<20)
		cw := &countingWriter{w: bw}
		err = l.StreamResults(ctx, cw)
		if ferr := bw.Flush(); err == nil {
			err = ferr
		}
		n = cw.n
	} else {
		n, err = writeFileAtomic(output, func(w io.Writer) error { return l.StreamResults(ctx, w) })
	}
	var ie *ledger.IncompleteError
	// A bare IncompleteError is a chunk voided since the check (a wrapped
	// one says why: a bad result).
	if errors.As(err, &ie) && err == error(ie) {
		return n, ie.Missing, nil
	}
	return n, nil, err
}
