package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/blastfleet/blastfleet/internal/storage/ledger"
)

// WatchInterval is how often status --watch refreshes (tests shorten it).
var WatchInterval = 2 * time.Second

// MaxReasonWidth bounds a failure reason on one line of a status.
const MaxReasonWidth = 100

// Truncate shortens s to n runes, the last one an ellipsis.
func Truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// SiteLine is one site's part of a campaign, as every status command
// shows it.
func SiteLine(queries, chunks, running int, lettersPerSecond float64) string {
	s := fmt.Sprintf("%d queries in %d chunks committed, %d chunks running", queries, chunks, running)
	if lettersPerSecond > 0 {
		s += fmt.Sprintf(", %s letters/s", humanize.SIWithDigits(lettersPerSecond, 1, ""))
	}
	return s
}

// RangesLine lists the first n ranges and how many more there are.
func RangesLine(rs []ledger.Range, n int) string {
	queries := 0
	for _, r := range rs {
		queries += r.Len()
	}
	parts := make([]string, 0, min(n, len(rs)))
	for _, r := range rs[:min(n, len(rs))] {
		parts = append(parts, r.String())
	}
	s := strings.Join(parts, " ")
	if len(rs) > n {
		s += fmt.Sprintf(" ... and %d more", len(rs)-n)
	}
	return fmt.Sprintf("%s (%d ranges, %d queries)", s, len(rs), queries)
}

// Percent is n of total as a percentage: "50.0%".
func Percent(n, total int) string {
	if total == 0 {
		return "100.0%"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(total))
}

// ProgressBar renders "[#####.....] 50/100 queries (50.0%)" in width cells.
func ProgressBar(done, total, width int) string {
	filled := width
	if total > 0 {
		filled = int(int64(done) * int64(width) / int64(total))
	}
	filled = max(0, min(width, filled))
	return fmt.Sprintf("[%s%s] %d/%d queries (%s)", strings.Repeat("#", filled), strings.Repeat(".", width-filled),
		done, total, Percent(done, total))
}

// Terminal is a writer that says whether it is a terminal: a test's
// stand-in for one.
type Terminal interface{ IsTerminal() bool }

// IsTerminal tells whether w is a character device (a terminal).
func IsTerminal(w io.Writer) bool {
	if t, ok := w.(Terminal); ok {
		return t.IsTerminal()
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// MaxMissingListed bounds the ranges a refusal lists.
const MaxMissingListed = 10

// Refusal is the error with which the results commands refuse to write
// an incomplete campaign's results; it matches ledger.ErrIncomplete.
type Refusal string

func (r Refusal) Error() string        { return string(r) }
func (r Refusal) Is(target error) bool { return target == ledger.ErrIncomplete }
