package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/blastfleet/blastfleet/internal/cli/report"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// LoadReport reads a campaign's ledger for its report, with a spinner on
// progress (a terminal) while it reads: a large ledger takes a while.
func LoadReport(ctx context.Context, st objstore.Store, meta report.Meta, progress io.Writer) (*report.Report, error) {
	bar := NewBar(progress, "reading the campaign's ledger", -1, Items)
	defer bar.Finish()
	return report.Load(ctx, st, meta)
}

// WriteReport writes the report's page (or, format json, its summary) to
// output (atomically), or to standard output for "-", and says on
// standard error what it holds.
func WriteReport(cmd *cobra.Command, rep *report.Report, output, format string) error {
	name, path := output, output
	if output == "-" {
		name, path = "the report to standard output", ""
	}
	write := rep.WriteHTML
	if format == ReportJSON {
		write = rep.WriteJSON
	}
	n, err := writeOutput(cmd.OutOrStdout(), path, write)
	if fe := (flushError{}); errors.As(err, &fe) {
		return fmt.Errorf("writing the report to standard output: %w", fe.error)
	}
	if err != nil {
		return err
	}
	c := rep.Counts()
	fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s (%d KiB): %s, %s, %s\n", name, (n+1023)/1024,
		plural(c.Runs, "run", "runs"), plural(c.Ranks, "rank", "ranks"), plural(c.Failures, "failure", "failures"))
	return nil
}
