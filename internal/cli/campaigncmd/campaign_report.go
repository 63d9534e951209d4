package campaigncmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/blastfleet/blastfleet/internal/cli"
	"github.com/blastfleet/blastfleet/internal/cli/report"
)

type campaignReportOptions struct {
	campaign, output, format string
}

func newCampaignReportCmd(root *cli.Options) *cobra.Command {
	o := &campaignReportOptions{}
	cmd := &cobra.Command{
		Use:   "report --campaign LOCATION [--format html|json] [--output-file FILE]",
		Short: "Write a campaign's HTML report from its ledger location, without a cluster",
		Long: `Write the campaign's report as one self-contained HTML file, as "blastfleet
report NAME" does on Kubernetes, straight from the ledger's location
(s3://bucket/prefix or a directory): for campaigns run with mpirun or
Slurm. The page shows the progress, a timeline of every rank of every
partition run by phase, the BLAST task times, the slowest tasks, every
failure and the runs; it needs no network to view.

The data is the ledger (plan, status, every chunk's attempts) and the run
records each partition's master writes under runs/ when it starts and when
it ends. The location may also be given as the only argument.

The file is FILE (default <campaign>-report.html, after the location's last
element), written whole or not at all; --output-file - writes to standard
output. --format json writes the run summary instead (to standard output
unless --output-file), as "blastfleet report --format json" does.`,
		Example: `  blastfleet campaign report --campaign s3://work/campaigns/run1 --output-file run1.html
  blastfleet campaign report --campaign s3://work/campaigns/run1 --format json
  blastfleet campaign report --campaign /scratch/campaigns/run1`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			loc := o.campaign
			if len(args) == 1 {
				if loc != "" && loc != args[0] {
					return fmt.Errorf("the campaign is --campaign %s or %s, not both", loc, args[0])
				}
				loc = args[0]
			}
			if loc == "" {
				return errors.New("--campaign LOCATION is required: the ledger's s3://bucket/prefix or directory")
			}
			return o.run(cmd.Context(), cmd, loc)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.campaign, "campaign", "", "the campaign's location: s3://bucket/prefix or a directory")
	cli.AddOutputFileFlag(cmd, &o.output, "write to FILE (default <campaign>-report.html, or standard output for --format json); - for standard output")
	cli.AddReportFormatFlag(cmd, &o.format)
	return cmd
}

func (o *campaignReportOptions) run(ctx context.Context, cmd *cobra.Command, loc string) error {
	file, err := cli.ReportFile(o.format, o.output, defaultCampaignName(loc))
	if err != nil {
		return err
	}
	st, err := openCampaignStore(ctx, loc)
	if err != nil {
		return err
	}
	rep, err := cli.LoadReport(ctx, st, report.Meta{Location: loc}, cmd.ErrOrStderr())
	if errors.Is(err, report.ErrNotPlanned) {
		return fmt.Errorf("%w (blastfleet campaign plan --output %s writes the plan)", err, loc)
	}
	if err != nil {
		return err
	}
	return cli.WriteReport(cmd, rep, file, o.format)
}
