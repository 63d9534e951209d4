package campaigncmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/blastfleet/blastfleet/internal/cli"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
)

type campaignStatusOptions struct {
	format string
	watch  bool
}

func newCampaignStatusCmd(root *cli.Options) *cobra.Command {
	o := &campaignStatusOptions{}
	cmd := &cobra.Command{
		Use:   "status LOCATION",
		Short: "Show a campaign's progress: chunks, attempts, queries done and failed",
		Long: `Show a campaign's progress from its ledger: chunks (split chunks count as
their halves) committed, leased, failed and pending; attempts and retries;
queries done and failed, with each failed query's reason; the query ranges
still missing. On a terminal a progress bar follows. -o json prints the
status as JSON for machines.

Reading the status also checks each commit against its result's size; a bad
commit is voided (its chunk will be redone) and listed under problems.

--watch refreshes every 2 seconds until the campaign is complete, then
exits 0.`,
		Example: `  blastfleet campaign status s3://work/campaigns/run1
  blastfleet campaign status s3://work/campaigns/run1 --watch
  blastfleet campaign status s3://work/campaigns/run1 -o json | jq .queriesDone`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.format != "table" && o.format != "json" {
				return fmt.Errorf("-o/--output must be table or json, not %q", o.format)
			}
			return o.run(cmd.Context(), cmd, args[0])
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.format, "output", "o", "table", "output format: table or json")
	f.BoolVarP(&o.watch, "watch", "w", false, "refresh every 2 s until the campaign is complete")
	return cmd
}

func (o *campaignStatusOptions) run(ctx context.Context, cmd *cobra.Command, loc string) error {
	l, err := openCampaign(ctx, loc)
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	tty := cli.IsTerminal(w)
	// One Ledger for every refresh: it re-reads only what changed.
	s, err := l.Status(ctx)
	if err != nil {
		return err
	}
	redraw := o.watch && tty && o.format == "table"
	var last []byte
	for {
		// Logs and pipes get a status only when it changed.
		cur, _ := json.Marshal(s)
		if redraw || string(cur) != string(last) {
			if redraw {
				fmt.Fprint(w, "\x1b[H\x1b[2J") // redraw in place
			} else if last != nil && o.format == "table" {
				fmt.Fprintln(w)
			}
			if err := o.print(w, loc, s, tty); err != nil {
				return err
			}
			last = cur
		}
		if !o.watch || s.Complete {
			return nil
		}
		// A store that is down for a while (restarting) is not the end of
		// watching: say so and try again.
		for {
			select {
			case <-ctx.Done():
				return fmt.Errorf("stopped watching before the campaign completed: %w", context.Cause(ctx))
			case <-time.After(cli.WatchInterval):
			}
			next, err := l.Status(ctx)
			if err == nil {
				s = next
				break
			}
			if ctx.Err() != nil {
				return fmt.Errorf("stopped watching before the campaign completed: %w", context.Cause(ctx))
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "%s: reading status: %v (retrying)\n", time.Now().Format(time.TimeOnly), err)
		}
	}
}

func (o *campaignStatusOptions) print(w io.Writer, loc string, s *ledger.Status, tty bool) error {
	if o.format == "json" {
		data, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", data)
		return err
	}
	printStatusTable(w, loc, s)
	if tty {
		fmt.Fprintln(w, cli.ProgressBar(s.QueriesDone, s.Queries, 40))
	}
	return nil
}

// Bounds of the table's lists.
const (
	maxFailedShown  = 10
	maxMissingShown = 8
)

func printStatusTable(w io.Writer, loc string, s *ledger.Status) {
	state := "in progress"
	if s.Complete {
		state = "complete"
	}
	fmt.Fprintf(w, "campaign  %s at %s: %s\n", s.Name, loc, state)
	fmt.Fprintf(w, "chunks    %d total: %d committed, %d leased, %d failed, %d pending\n",
		s.Chunks, s.Committed, s.Leased, s.Failed, s.Pending)
	fmt.Fprintf(w, "attempts  %d (%d retries)\n", s.Attempts, s.Retries)
	fmt.Fprintf(w, "queries   %d of %d done (%s), %d failed\n", s.QueriesDone, s.Queries, cli.Percent(s.QueriesDone, s.Queries), s.QueriesFailed)
	for _, site := range s.Sites {
		fmt.Fprintf(w, "site      %s: %s\n", site.Name, cli.SiteLine(site.QueriesDone, site.ChunksCommitted, site.Running, site.LettersPerSecond))
	}
	if len(s.FailedQueries) > 0 {
		fmt.Fprintf(w, "failed queries (index in the queries file):\n")
		for i, fq := range s.FailedQueries {
			if i == maxFailedShown {
				fmt.Fprintf(w, "  ... and %d more (-o json lists them all)\n", len(s.FailedQueries)-i)
				break
			}
			fmt.Fprintf(w, "  #%d: %s\n", fq.Query, failureLine(fq.Reason))
		}
	}
	if len(s.Missing) > 0 {
		fmt.Fprintf(w, "missing   %s\n", cli.RangesLine(s.Missing, maxMissingShown))
	}
	if len(s.SearchedAlone) > 0 {
		fmt.Fprintf(w, "alone     %s: split to isolate a failing query, searched each query alone, not in BLAST+'s batches\n", cli.RangesLine(s.SearchedAlone, maxMissingShown))
	}
	for _, pr := range s.Problems {
		fmt.Fprintf(w, "problem   %s\n", cli.Truncate(pr, 2*cli.MaxReasonWidth))
	}
}

// failureLine is a failure reason on one line: the message with exit code
// or signal, and the last line of BLAST's stderr.
func failureLine(f ledger.FailureReason) string {
	s := f.String()
	if tail := strings.TrimSpace(f.StderrTail); tail != "" {
		lines := strings.Split(tail, "\n")
		s += ": " + strings.TrimSpace(lines[len(lines)-1])
	}
	return cli.Truncate(strings.Join(strings.Fields(s), " "), cli.MaxReasonWidth)
}
