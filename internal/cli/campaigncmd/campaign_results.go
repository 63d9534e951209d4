package campaigncmd

import (
	"context"
	"fmt"

	"github.com/dustin/go-humanize"
	"github.com/spf13/cobra"

	"github.com/blastfleet/blastfleet/internal/cli"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
)

type campaignResultsOptions struct {
	output  string
	results cli.ResultsOptions
}

func newCampaignResultsCmd(root *cli.Options) *cobra.Command {
	o := &campaignResultsOptions{}
	cmd := &cobra.Command{
		Use:   "results LOCATION [--output-file FILE]",
		Short: "Write a complete campaign's results in query order",
		Long: `Write the committed results of a complete campaign, chunk by chunk in query
order, to standard output or to FILE. Each chunk's result is checked
against its commit marker's size and SHA-256 as it is copied, and the
whole against the assembled result's record (assembled.json), which the
partitions write once the campaign is complete: until then the command
refuses rather than leave the whole unchecked.

While chunks are missing the command refuses (exit 1) and lists the missing
query ranges; see blastfleet campaign status. Queries recorded as failed
have no results; status lists them.

With --output-file FILE the results go to a temporary file next to FILE, renamed to
FILE only when every chunk was copied and checked: a refusal or a bad
result leaves no FILE (an existing FILE is kept). On standard output a bad
result stops the stream after the chunks before it. The command changes
nothing in the campaign: a bad result is reported, not voided.`,
		Example: `  blastfleet campaign results s3://work/campaigns/run1 --output-file run1.tsv
  blastfleet campaign results s3://work/campaigns/run1 | sort -k1,1 | head`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), cmd, args[0])
		},
	}
	cli.AddOutputFileFlag(cmd, &o.output, "write to FILE instead of standard output")
	o.results.AddFlags(cmd.Flags())
	return cmd
}

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
	n, missing, err := cli.WriteResults(ctx, cmd.OutOrStdout(), l, o.output, o.results, cmd.ErrOrStderr())
	if err != nil {
		return fmt.Errorf("campaign %s: %w", loc, err)
	}
	if missing != nil {
		return incompleteError(loc, missing)
	}
	errw := cmd.ErrOrStderr()
	cli.SayResults(errw, s, n, o.output, "blastfleet campaign status "+loc)
	if info, err := l.Store().Stat(ctx, ledger.ResultKey); err == nil {
		fmt.Fprintf(errw, "the assembled result is also at %s (%s)\n", l.Store().URL(ledger.ResultKey), humanize.IBytes(uint64(info.Size)))
	}
	return nil
}

// incompleteError is the refusal: the first missing ranges and a count.
// It matches ledger.ErrIncomplete.
func incompleteError(loc string, missing []ledger.Range) error {
	return cli.Refusal(fmt.Sprintf("campaign %s is incomplete: missing query ranges %s; refusing to write partial results (see blastfleet campaign status %s)",
		loc, cli.RangesLine(missing, cli.MaxMissingListed), loc))
}
