package kubecmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/blastfleet/blastfleet/internal/cli"
	"github.com/blastfleet/blastfleet/internal/cli/report"
)

type reportOptions struct {
	output, format string
	storageFlags
}

func newReportCmd() *cobra.Command {
	o := &reportOptions{}
	k := &kubeOptions{}
	cmd := &cobra.Command{
		Use:   "report NAME [--format html|json] [--output-file FILE]",
		Short: "Write a campaign's HTML report: progress, a timeline of every rank, task times, failures",
		Long: `Write a SearchCampaign's report as one self-contained HTML file (no network
needed to view it): a summary of its progress and efficiency, a timeline of
every rank of every partition run by phase (setup, distribution, compute,
merge, gather, write, sync), the distribution of BLAST task times, the
slowest tasks, every failure (failed queries, failed attempts, failed or
silent runs), and the runs.

It reads the campaign's ledger straight from object storage (its
status.location): the plan, the chunks' attempts, and the run record each
partition's master writes under runs/. Credentials and endpoint are found
as for "results": the AWS_* variables, or --from-secret, and --endpoint.

The file is FILE (default NAME-report.html), written whole or not at all;
--output-file - writes the page to standard output.

--format json writes the run summary instead, to standard output unless
--output-file is given: the campaign's phase, queries, chunks, failed
queries, sites and the runs' times, for scripts (docs/cli.md).`,
		Example: `  blastfleet report human-vs-sprot --from-secret
  blastfleet report human-vs-sprot --from-secret --endpoint http://127.0.0.1:9000 --output-file report.html
  blastfleet report human-vs-sprot --from-secret --format json | jq .queries`,
		Args: cobra.ExactArgs(1),
		RunE: kubeRun(k, o.run),
	}
	cli.AddOutputFileFlag(cmd, &o.output, "write to FILE (default NAME-report.html, or standard output for --format json); - for standard output")
	cli.AddReportFormatFlag(cmd, &o.format)
	o.storageFlags.addFlags(cmd)
	k.addFlags(cmd)
	k.completeCampaigns(cmd, false)
	return cmd
}

func (o *reportOptions) run(ctx context.Context, cmd *cobra.Command, kc *kube, args []string) error {
	file, err := cli.ReportFile(o.format, o.output, campaignName(args[0]))
	if err != nil {
		return err
	}
	c, err := kc.getCampaign(ctx, args[0])
	if err != nil {
		return err
	}
	st, cfg, err := o.store(ctx, kc, c)
	if err != nil {
		return err
	}
	rep, err := cli.LoadReport(ctx, st, report.Meta{Namespace: c.Namespace, Name: c.Name, Phase: string(c.Status.Phase), Location: campaignLocation(c)}, cmd.ErrOrStderr())
	if errors.Is(err, report.ErrNotPlanned) {
		return notPlanned(kc, c, "there is nothing to report before the operator plans it")
	}
	if err != nil {
		return storageError(fmt.Errorf("campaign %s: %w (object storage %s)", c.Name, err, cfg))
	}
	return cli.WriteReport(cmd, rep, file, o.format)
}
