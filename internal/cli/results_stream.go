package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/dustin/go-humanize"

	"github.com/blastfleet/blastfleet/internal/storage/ledger"
)

// StreamResults writes a complete ledger's results to the file output
// (atomically), or to stdout when output is empty, and returns the bytes
// written. A chunk voided since the caller checked the status comes back
// as missing ranges rather than an error. The whole is checked against
// want, else the store's record of the assembled result (ledger.ReadResults);
// nothing in the campaign is changed. progress shows the bytes written
// (nil: nothing shown).
func StreamResults(ctx context.Context, stdout io.Writer, l *ledger.Ledger, output string, want *ledger.Expected, progress io.Writer) (int64, []ledger.Range, error) {
	total := int64(-1)
	if want != nil {
		total = want.Size
	} else if asm, err := l.AssembledResult(ctx); err == nil && asm != nil {
		total = asm.Size // ReadResults reads it again, to check against
	}
	bar := NewBar(orDiscard(progress), "downloading the results", total, Bytes)
	n, err := writeOutput(stdout, output, func(w io.Writer) error { return l.ReadResults(ctx, bar.Writer(w), want) })
	bar.Finish()
	var ie *ledger.IncompleteError
	// A bare IncompleteError is a chunk voided since the check (a wrapped
	// one says why: a bad result).
	if errors.As(err, &ie) && err == error(ie) {
		return n, ie.Missing, nil
	}
	return n, nil, err
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// SayResults tells standard error what results wrote to a file, and
// points at the failed queries, which have no results, with statusCmd.
func SayResults(errw io.Writer, s *ledger.Status, n int64, output, statusCmd string) {
	if output != "" {
		Hint(errw, "wrote %s (%s) to %s", plural(s.QueriesDone, "query's results", "queries' results"), humanize.IBytes(uint64(n)), output)
	}
	if s.QueriesFailed > 0 {
		Hint(errw, "%s failed and have no results: %s", plural(s.QueriesFailed, "query", "queries"), statusCmd)
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
