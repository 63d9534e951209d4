package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/dustin/go-humanize"
	"github.com/spf13/cobra"

	"github.com/blastfleet/blastfleet/internal/ledger"
)

type campaignResultsOptions struct {
	output string
}

func newCampaignResultsCmd(root *rootOptions) *cobra.Command {
	o := &campaignResultsOptions{}
	cmd := &cobra.Command{
		Use:   "results LOCATION [-o FILE]",
		Short: "Write a complete campaign's results in query order",
		Long: `Write the committed results of a complete campaign, chunk by chunk in query
order, to standard output or to FILE. Each chunk's result is checked
against its commit marker's size and SHA-256 as it is copied.

While chunks are missing the command refuses (exit 1) and lists the missing
query ranges; see blastfleet campaign status. Queries recorded as failed
have no results; status lists them.

With -o FILE the results go to a temporary file next to FILE, renamed to
FILE only when every chunk was copied and checked: a refusal or a bad
result leaves no FILE (an existing FILE is kept). On standard output a bad
result stops the stream after the chunks before it; the bad chunk is voided
and will be redone by the partitions.`,
		Example: `  blastfleet campaign results s3://work/campaigns/run1 -o run1.tsv
  blastfleet campaign results s3://work/campaigns/run1 | sort -k1,1 | head`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), cmd, args[0])
		},
	}
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "write to FILE instead of standard output")
	return cmd
}

// maxMissingListed bounds the ranges a refusal lists.
const maxMissingListed = 10

func (o *campaignResultsOptions) run(ctx context.Context, cmd *cobra.Command, loc string) error {
	l, err := openCampaign(ctx, loc)
	if err != nil {
		return err
	}
	// Refuse before any file is made. StreamResults checks again (and
	// the check is cheap on the same Ledger: the records are cached).
	s, err := l.Status(ctx)
	if err != nil {
		return err
	}
	if !s.Complete {
		return incompleteError(loc, s.Missing)
	}
	n, missing, err := streamResults(ctx, cmd.OutOrStdout(), l, o.output)
	if err != nil {
		return fmt.Errorf("campaign %s: %w", loc, err)
	}
	if missing != nil {
		return incompleteError(loc, missing)
	}
	errw := cmd.ErrOrStderr()
	if o.output != "" {
		fmt.Fprintf(errw, "wrote %s (%s) to %s\n", plural(s.QueriesDone, "query's results", "queries' results"), humanize.IBytes(uint64(n)), o.output)
	}
	if s.QueriesFailed > 0 {
		fmt.Fprintf(errw, "%s failed and have no results: blastfleet campaign status %s\n", plural(s.QueriesFailed, "query", "queries"), loc)
	}
	if info, err := l.Store().Stat(ctx, ledger.ResultKey); err == nil {
		fmt.Fprintf(errw, "the assembled result is also at %s (%s)\n", l.Store().URL(ledger.ResultKey), humanize.IBytes(uint64(info.Size)))
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// incompleteError is the refusal: the first missing ranges and a count.
// It matches ledger.ErrIncomplete.
func incompleteError(loc string, missing []ledger.Range) error {
	return refusal(fmt.Sprintf("campaign %s is incomplete: missing query ranges %s; refusing to write partial results (see blastfleet campaign status %s)",
		loc, rangesLine(missing, maxMissingListed), loc))
}

type refusal string

func (r refusal) Error() string        { return string(r) }
func (r refusal) Is(target error) bool { return target == ledger.ErrIncomplete }

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// writeFileAtomic runs fill on a temporary file in path's directory and
// renames it to path only if fill and the file's sync succeed; otherwise
// the temporary file is removed and path is left as it was.
func writeFileAtomic(path string, fill func(io.Writer) error) (n int64, err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return 0, fmt.Errorf("-o %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	cw := &countingWriter{w: bw}
	if err = fill(cw); err != nil {
		return 0, err
	}
	if err = bw.Flush(); err != nil {
		return 0, fmt.Errorf("-o %s: %w", path, err)
	}
	if err = f.Chmod(0o644); err != nil {
		return 0, fmt.Errorf("-o %s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return 0, fmt.Errorf("-o %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return 0, fmt.Errorf("-o %s: %w", path, err)
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return 0, fmt.Errorf("-o %s: %w", path, err)
	}
	return cw.n, nil
}
