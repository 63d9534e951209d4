package cli

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/schollz/progressbar/v3"
)

// Unit is what a progress display counts.
type Unit int

const (
	Bytes Unit = iota
	Items
)

// plainEvery is how often a plain display prints a line.
const plainEvery = 10 * time.Second

// Bar shows how far a long command is: a bar redrawn in place
// (github.com/schollz/progressbar) when its writer is a terminal, else a
// plain line now and then, so a log or a CI transcript stays short and
// readable. Its methods may be called from several goroutines.
type Bar struct {
	mu    sync.Mutex
	w     io.Writer
	what  string
	unit  Unit
	total int64 // ≤ 0: unknown
	n     int64
	bar   *progressbar.ProgressBar // nil: plain lines
	every time.Duration
	last  time.Time
	shown bool // a plain line was printed
	done  bool
}

// NewBar starts a display of what, total units in all (≤ 0 if unknown:
// a spinner), on w.
func NewBar(w io.Writer, what string, total int64, unit Unit) *Bar {
	return newBar(w, what, total, unit, IsTerminal(w))
}

func newBar(w io.Writer, what string, total int64, unit Unit, tty bool) *Bar {
	b := &Bar{w: w, what: what, unit: unit, total: total, every: plainEvery, last: time.Now()}
	if !tty {
		return b
	}
	max := total
	if max <= 0 {
		max = -1
	}
	opts := []progressbar.Option{
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(what),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100 * time.Millisecond),
		progressbar.OptionShowElapsedTimeOnFinish(),
		progressbar.OptionSetRenderBlankState(true),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }),
	}
	if unit == Bytes {
		opts = append(opts, progressbar.OptionShowBytes(true), progressbar.OptionUseIECUnits(true), progressbar.OptionShowTotalBytes(true))
	} else {
		opts = append(opts, progressbar.OptionShowCount())
	}
	if max < 0 {
		opts = append(opts, progressbar.OptionSpinnerType(14))
	}
	b.bar = progressbar.NewOptions64(max, opts...)
	return b
}

// Add counts n more units done.
func (b *Bar) Add(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.n += n
	if b.bar != nil {
		_ = b.bar.Add64(n)
		return
	}
	if time.Since(b.last) >= b.every {
		b.line("")
	}
}

// Println prints a line of its own, above the bar on a terminal.
func (b *Bar) Println(line string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.bar != nil && !b.done {
		_ = b.bar.Clear()
		fmt.Fprintln(b.w, line)
		_ = b.bar.RenderBlank()
		return
	}
	fmt.Fprintln(b.w, line)
}

// Finish ends the display: the bar full, or a last plain line when one
// was printed before (a quick command prints none).
func (b *Bar) Finish() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return
	}
	b.done = true
	if b.bar != nil {
		// A spinner's too: it stops its ticking goroutine.
		_ = b.bar.Finish()
		return
	}
	if b.shown {
		b.line("done")
	}
}

// Reader counts what is read from r (an upload's source).
func (b *Bar) Reader(r io.Reader) io.Reader { return &countingReader{r: r, b: b} }

type countingReader struct {
	r io.Reader
	b *Bar
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.b.Add(int64(n))
	return n, err
}

// Writer counts what is written to w.
func (b *Bar) Writer(w io.Writer) io.Writer { return &counting{w: w, b: b} }

type counting struct {
	w io.Writer
	b *Bar
}

func (c *counting) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.b.Add(int64(n))
	return n, err
}

// line prints a plain line: "what: 3.1 MiB of 12 MiB (26%)", with state
// after it ("done") if any. The caller holds mu.
func (b *Bar) line(state string) {
	b.last, b.shown = time.Now(), true
	s := b.what + ": " + b.amount(b.n)
	if b.total > 0 {
		s += fmt.Sprintf(" of %s (%.0f%%)", b.amount(b.total), 100*float64(b.n)/float64(b.total))
	}
	if state != "" {
		s += ", " + state
	}
	fmt.Fprintln(b.w, s)
}

func (b *Bar) amount(n int64) string {
	if b.unit == Bytes {
		return humanize.IBytes(uint64(max(n, 0)))
	}
	return fmt.Sprint(n)
}
