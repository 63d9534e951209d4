package campaigncmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/dustin/go-humanize"
	"github.com/spf13/cobra"

	"github.com/blastfleet/blastfleet/internal/cli"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
)

func newCampaignAssembleCmd(*cli.Options) *cobra.Command {
	return &cobra.Command{
		Use:   "assemble LOCATION",
		Short: "Assemble a complete campaign's result into one object, as its last partition does",
		Long: `Compose a complete campaign's committed results, in query order, into the
single result object at LOCATION/result and record its size and SHA-256 in
assembled.json. Every result is checked against its commit first: a bad one
is voided (its chunk will be redone) and the command fails.

The campaign's partitions assemble the result themselves before they exit,
one at a time under an assembly lease; this command takes the same lease,
so it is safe beside them. The operator runs it as a short Job when every
chunk is decided and no partition is left to assemble. An already
assembled campaign is reported at once.`,
		Example: `  blastfleet campaign assemble s3://work/campaigns/run1`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runAssemble(cmd.Context(), cmd, args[0])
		},
	}
}

func runAssemble(ctx context.Context, cmd *cobra.Command, loc string) error {
	l, err := openCampaign(ctx, loc)
	if err != nil {
		return err
	}
	s, err := l.Status(ctx)
	if err != nil {
		return fmt.Errorf("campaign %s: %w", loc, err)
	}
	if !s.Complete {
		return cli.Refusal(fmt.Sprintf("campaign %s is incomplete: missing query ranges %s; nothing to assemble until every chunk is decided (see blastfleet campaign status %s)",
			loc, cli.RangesLine(s.Missing, cli.MaxMissingListed), loc))
	}
	key, err := l.Assemble(ctx)
	if errors.Is(err, ledger.ErrIncomplete) {
		return fmt.Errorf("campaign %s: a committed result failed its check and was voided; its chunk must be searched again before the result can be assembled: %w", loc, err)
	}
	if err != nil {
		return fmt.Errorf("campaign %s: %w", loc, err)
	}
	asm, err := l.AssembledResult(ctx)
	if err != nil || asm == nil {
		return fmt.Errorf("campaign %s: assembled, but reading its record: %v", loc, err)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "assembled %s (%s, sha256 %s)\n", l.Store().URL(key), humanize.IBytes(uint64(asm.Size)), asm.SHA256)
	return nil
}
