package kubecmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/cli"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

type resultsOptions struct {
	output  string
	results cli.ResultsOptions
	storageFlags
}

func newResultsCmd() *cobra.Command {
	o := &resultsOptions{}
	k := &kubeOptions{}
	cmd := &cobra.Command{
		Use:   "results NAME [--output-file FILE]",
		Short: "Stream a complete campaign's merged result to a file or standard output",
		Long: `Write a SearchCampaign's merged result, in query order, to standard output or
FILE, reading the campaign's ledger straight from object storage (its
status.location). Each chunk's result is checked against its commit
marker's size and SHA-256 as it is copied, and the whole against the
campaign's status.resultSHA256, which the operator records when it
assembles the result (and which writers of the store cannot change): until
it is recorded the command refuses. It changes nothing in the campaign.

While chunks are missing the command refuses (exit 1) and names the missing
chunks by their query ranges; with --output-file FILE no FILE is written
then. (-o FILE, its old name, still works: deprecated, as -o names a
format in kubectl.)
Queries recorded as failed have no results; status lists them.

Object storage is reached with the AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY
(and AWS_SESSION_TOKEN, AWS_REGION) variables; --from-secret reads the
campaign's credentials Secret through the API server instead. The endpoint
is --endpoint, else AWS_ENDPOINT_URL, else the campaign's
spec.output.endpoint (which may be a name only the cluster resolves: then
port-forward it and give --endpoint http://127.0.0.1:9000).`,
		Example: `  blastfleet results human-vs-sprot --output-file human-vs-sprot.tsv
  blastfleet results human-vs-sprot --from-secret | sort -k1,1 | head
  kubectl -n minio port-forward svc/minio 9000 &
  blastfleet results human-vs-sprot --from-secret --endpoint http://127.0.0.1:9000 --output-file hits.tsv`,
		Args: cobra.ExactArgs(1),
		RunE: kubeRun(k, o.run),
	}
	cli.AddOutputFileFlag(cmd, &o.output, "write to FILE instead of standard output")
	o.results.AddFlags(cmd.Flags())
	o.storageFlags.addFlags(cmd)
	k.addFlags(cmd)
	k.completeCampaigns(cmd, false)
	return cmd
}

func (o *resultsOptions) run(ctx context.Context, cmd *cobra.Command, kc *kube, args []string) error {
	c, err := kc.getCampaign(ctx, args[0])
	if err != nil {
		return err
	}
	l, err := o.openLedger(ctx, kc, c)
	if err != nil {
		return err
	}
	// Refuse before any file is made; StreamResults checks again.
	s, err := l.Status(ctx)
	if err != nil {
		return storageError(fmt.Errorf("campaign %s: reading its ledger at %s: %w", c.Name, campaignLocation(c), err))
	}
	if !s.Complete {
		return o.incomplete(kc, c, s.Missing)
	}
	// The campaign's status is the record of its result that whoever can
	// write the store cannot rewrite: the results are checked against it,
	// and without it there is nothing trustworthy to check against.
	if c.Status.ResultSHA256 == "" {
		return cli.Refusal(fmt.Sprintf("campaign %s has no status.resultSHA256 yet (phase %s): the operator records it when it assembles the result; follow it with %s",
			c.Name, c.Status.Phase, kc.suggest(c.Namespace, "status "+c.Name+" --watch")))
	}
	o.results.Want = &ledger.Expected{SHA256: c.Status.ResultSHA256, Size: c.Status.ResultBytes,
		From: fmt.Sprintf("SearchCampaign %s/%s status.resultSHA256", c.Namespace, c.Name)}
	if o.results.Open == nil && l.Plan() != nil && l.Plan().Search.Metadata {
		// Regenerating reads the database and the queries as the ledger
		// is read: --endpoint, --from-secret or this machine's variables.
		cfg, err := o.s3Config(ctx, kc, c)
		if err != nil {
			return err
		}
		o.results.Open = func(ctx context.Context, role objstore.Role, loc string) (objstore.Store, error) {
			if role != objstore.RoleOutput && objstore.RoleConfigured(role) {
				// The database or queries on a store of their own,
				// as this machine's BLASTFLEET_<ROLE>_ variables say.
				return objstore.OpenAs(ctx, role, loc)
			}
			rest, ok := strings.CutPrefix(loc, "s3://")
			if !ok {
				return objstore.Open(ctx, loc)
			}
			bucket, prefix, _ := strings.Cut(rest, "/")
			return objstore.NewS3(cfg, bucket, prefix)
		}
	}
	n, missing, err := cli.WriteResults(ctx, cmd.OutOrStdout(), l, o.output, o.results, cmd.ErrOrStderr())
	if err != nil {
		return storageError(fmt.Errorf("campaign %s: %w", c.Name, err))
	}
	if missing != nil {
		return o.incomplete(kc, c, missing)
	}
	cli.SayResults(cmd.ErrOrStderr(), s, n, o.output, kc.suggest(c.Namespace, "status "+c.Name))
	return nil
}

// openLedger opens the campaign's ledger; a campaign not planned yet has
// none, and says so.
func (o *resultsOptions) openLedger(ctx context.Context, kc *kube, c *v1alpha1.SearchCampaign) (*ledger.Ledger, error) {
	st, cfg, err := o.store(ctx, kc, c)
	if err != nil {
		return nil, err
	}
	l, err := ledger.Open(ctx, st, ledger.Options{})
	if errors.Is(err, objstore.ErrNotExist) {
		return nil, notPlanned(kc, c, "results come once it is Complete")
	}
	if err != nil {
		return nil, storageError(fmt.Errorf("campaign %s: opening its ledger at %s on %s: %w", c.Name, campaignLocation(c), cfg, err))
	}
	return l, nil
}

// incomplete is the refusal naming the missing chunks; it matches
// ledger.ErrIncomplete.
func (o *resultsOptions) incomplete(kc *kube, c *v1alpha1.SearchCampaign, missing []ledger.Range) error {
	return cli.Refusal(fmt.Sprintf("campaign %s is incomplete: missing chunks (query ranges) %s; refusing to write partial results (follow it with %s)",
		c.Name, cli.RangesLine(missing, cli.MaxMissingListed), kc.suggest(c.Namespace, "status "+c.Name+" --watch")))
}
