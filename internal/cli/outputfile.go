package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

// AddOutputFileFlag adds --output-file FILE to a command that writes a
// file. -o/--output, which meant the file here but means the format in
// kubectl and the other commands, still works, deprecated, so scripts
// keep running while they move.
func AddOutputFileFlag(cmd *cobra.Command, p *string, usage string) {
	f := cmd.Flags()
	f.StringVar(p, "output-file", "", usage)
	f.StringVarP(p, "output", "o", "", usage)
	_ = f.MarkDeprecated("output", "use --output-file FILE: -o names an output format in kubectl and the other commands")
}

// Report formats: the HTML page, or the JSON run summary.
const (
	ReportHTML = "html"
	ReportJSON = "json"
)

// AddReportFormatFlag adds --format html|json to a report command.
func AddReportFormatFlag(cmd *cobra.Command, p *string) {
	cmd.Flags().StringVar(p, "format", ReportHTML, "html: the self-contained page; json: the run summary, for scripts (to standard output unless --output-file)")
}

// ReportFile is where a report goes: output if given, else standard
// output for JSON and NAME-report.html for the page.
func ReportFile(format, output, name string) (string, error) {
	if format != ReportHTML && format != ReportJSON {
		return "", fmt.Errorf("--format %q: want html or json", format)
	}
	switch {
	case output != "":
		return output, nil
	case format == ReportJSON:
		return "-", nil
	}
	return name + "-report.html", nil
}
