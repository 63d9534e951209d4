package main

import (
	"bufio"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/blastfleet/blastfleet/internal/report"
)

// writeReport writes the report's page to output (atomically), or to
// standard output for "-", and says on standard error what it holds.
func writeReport(cmd *cobra.Command, rep *report.Report, output string) error {
	var n int64
	name := output
	if output == "-" {
		name = "the report to standard output"
		cw := &countingWriter{w: cmd.OutOrStdout()}
		bw := bufio.NewWriterSize(cw, 1<<16)
		err := rep.WriteHTML(bw)
		if ferr := bw.Flush(); err == nil && ferr != nil {
			err = fmt.Errorf("writing the report to standard output: %w", ferr)
		}
		if err != nil {
			return err
		}
		n = cw.n
	} else {
		var err error
		if n, err = writeFileAtomic(output, rep.WriteHTML); err != nil {
			return err
		}
	}
	c := rep.Counts()
	fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s (%d KiB): %s, %s, %s\n", name, (n+1023)/1024,
		plural(c.Runs, "run", "runs"), plural(c.Ranks, "rank", "ranks"), plural(c.Failures, "failure", "failures"))
	return nil
}
