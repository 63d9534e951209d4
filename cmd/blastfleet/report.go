package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/blastfleet/blastfleet/internal/report"
)

type reportOptions struct {
	output     string
	endpoint   string
	fromSecret bool
}

func newReportCmd() *cobra.Command {
	o := &reportOptions{}
	k := &kubeOptions{}
	cmd := &cobra.Command{
		Use:   "report NAME [-o FILE]",
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
-o - writes the page to standard output.`,
		Example: `  blastfleet report human-vs-sprot --from-secret
  blastfleet report human-vs-sprot --from-secret --endpoint http://127.0.0.1:9000 -o report.html
  blastfleet report human-vs-sprot -o - > report.html`,
		Args: cobra.ExactArgs(1),
		RunE: kubeRun(k, o.run),
	}
	f := cmd.Flags()
	f.StringVarP(&o.output, "output", "o", "", "write to FILE (default NAME-report.html); - for standard output")
	f.StringVar(&o.endpoint, "endpoint", "", "S3 endpoint to read from, e.g. http://127.0.0.1:9000 (default: AWS_ENDPOINT_URL, else the campaign's)")
	f.BoolVar(&o.fromSecret, "from-secret", false, "read the S3 credentials from the campaign's Secret through the API server")
	k.addFlags(cmd)
	return cmd
}

func (o *reportOptions) run(ctx context.Context, cmd *cobra.Command, kc *kube, args []string) error {
	c, err := kc.getCampaign(ctx, args[0])
	if err != nil {
		return err
	}
	st, cfg, err := campaignStore(ctx, kc, c, o.endpoint, o.fromSecret)
	if err != nil {
		return err
	}
	loc := campaignLocation(c)
	rep, err := report.Load(ctx, st, report.Meta{Namespace: c.Namespace, Name: c.Name, Phase: string(c.Status.Phase), Location: loc})
	if errors.Is(err, report.ErrNotPlanned) {
		return fmt.Errorf("campaign %s has no plan at %s yet (phase %s): there is nothing to report before the operator plans it; follow it with %s",
			c.Name, loc, orDash(string(c.Status.Phase)), kc.suggest(c.Namespace, "status "+c.Name+" --watch"))
	}
	if err != nil {
		return storageError(fmt.Errorf("campaign %s: %w (object storage %s)", c.Name, err, cfg))
	}
	return writeReport(cmd, rep, coalesce(o.output, c.Name+"-report.html"))
}
