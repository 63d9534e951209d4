package dbcmd

import (
	"fmt"
	"io"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/blastfleet/blastfleet/internal/cli"
	"github.com/blastfleet/blastfleet/internal/storage/dbcopy"
)

// copyProgress shows a copy's files and bytes: one line redrawn in place
// on a terminal, else a line now and then (a log stays short).
type copyProgress struct {
	w     io.Writer
	what  string
	tty   bool
	every time.Duration
	last  time.Time
	p     dbcopy.Progress
	shown bool
}

func newCopyProgress(w io.Writer, what string) *copyProgress {
	c := &copyProgress{w: w, what: what, tty: cli.IsTerminal(w), every: 10 * time.Second}
	if c.tty {
		c.every = 200 * time.Millisecond
	}
	c.last = time.Now()
	return c
}

// update is dbcopy's Progress callback (calls come serialised).
func (c *copyProgress) update(p dbcopy.Progress) {
	c.p = p
	if time.Since(c.last) >= c.every {
		c.print()
	}
}

// done ends the display with the last counts.
func (c *copyProgress) done() {
	if c.shown || c.tty {
		c.print()
	}
	if c.tty && c.shown {
		fmt.Fprintln(c.w)
	}
}

func (c *copyProgress) print() {
	c.last, c.shown = time.Now(), true
	line := fmt.Sprintf("%s: %d/%d files, %s/%s", c.what, c.p.Files, c.p.TotalFiles,
		humanize.IBytes(uint64(c.p.Bytes)), humanize.IBytes(uint64(c.p.TotalBytes)))
	if c.tty {
		fmt.Fprintf(c.w, "\r\033[K%s", line)
		return
	}
	fmt.Fprintln(c.w, line)
}
