package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/blastfleet/blastfleet/internal/report"
)

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
