package kubecmd

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/cli"
)

type submitOptions struct {
	spec   submitSpec
	file   string
	dryRun string
	// flagOptions are the --blast-option sent (taxid lists taken out),
	// which errors name; nil for campaigns from -f.
	flagOptions []string
}

func newSubmitCmd() *cobra.Command {
	o := &submitOptions{}
	k := &kubeOptions{}
	cmd := &cobra.Command{
		Use:   "submit (--name NAME --database DB --queries S3URL|FILE... --program P [flags] | -f FILE)",
		Short: "Create a SearchCampaign from flags or from a file",
		Long: `Create a SearchCampaign in the cluster: from flags, or from a YAML or JSON file
(-f, like kubectl create -f; "-" reads standard input).

From flags, only the fields given are sent: the API server fills in the
defaults (1 partition of 2 workers, chunks of 1,000,000 letters, outfmt 6,
500 target sequences, ...) and validates every field. Its refusal is shown
as it is and names the field, for example
  spec.partitions.count: Invalid value: 0: spec.partitions.count in body should be greater than or equal to 1
The search (program, outfmt, options, ...) is also checked here as the
operator will check it before planning: what the API server lets through
but the operator would fail the campaign for is refused before the
campaign exists, naming the flag (or, from -f, the field).

The output storage (--endpoint, --region, --bucket, --credentials-secret)
defaults to the database's, which the operator requires anyway for the
endpoint; the ledger and result go to s3://<bucket>/<prefix>/<namespace>/<name>/.

--queries names an object, s3://bucket/key, or a file on this machine:
that file is checked as the planner will check it (every record, for the
program's alphabet), then uploaded with progress beside the campaign's
ledger (<prefix>/<namespace>/<name>/queries/<file>), with the AWS_*
variables (or AWS_PROFILE) and AWS_ENDPOINT_URL, else the output's
endpoint. Several --queries, or a tarball (.tar, .tar.gz, .tgz) of FASTA
files, are joined here in the order given (a tarball's members in archive
order, gzip or not) into one queries object, queries.fa (a tarball alone:
its name as .fa); an error names the file and member.

--dry-run (or --dry-run=client) prints the campaign as YAML and creates
nothing; --dry-run=server has the API server validate and default it
without storing it, and prints what it would store.`,
		Example: `  # the human proteome against a sharded Swiss-Prot, 2 partitions of 4 workers
  blastfleet submit --name human-vs-sprot --database uniprot-sprot \
      --queries inputs/human.fa.gz --program blastp --evalue 1e-5 \
      --blast-option=-matrix=BLOSUM62 --chunk-queries 500 --partitions 2 --workers 4

  # queries in several files, or a tarball of them: one queries object
  blastfleet submit --name reads --database nt --program blastn --queries run1.fa.gz --queries run2.fa
  blastfleet submit --name reads2 --database nt --program blastn --queries reads.tar.gz

  # the same from a file, then follow it
  blastfleet submit -f campaign.yaml
  blastfleet status human-vs-sprot --watch

  # see what would be created, with the server's defaults
  blastfleet submit --name try --database nt --queries s3://in/q.fa --program blastn --dry-run=server`,
		Args: cobra.NoArgs,
		RunE: kubeRun(k, o.run),
	}
	o.spec.addFlags(cmd)
	cmd.Flags().StringVarP(&o.file, "filename", "f", "", `file with the SearchCampaign(s) to create, YAML or JSON ("-": standard input)`)
	cmd.Flags().StringVar(&o.dryRun, "dry-run", "none", `"client" (or no value): print the campaign as YAML; "server": have the API server validate and default it; nothing is created`)
	cmd.Flags().Lookup("dry-run").NoOptDefVal = "client"
	cmd.MarkFlagsMutuallyExclusive("chunk-letters", "chunk-queries")
	k.addFlags(cmd)
	return cmd
}

func (o *submitOptions) run(ctx context.Context, cmd *cobra.Command, kc *kube, _ []string) error {
	if err := cli.CheckFormat(o.dryRun, "none", "client", "server"); err != nil {
		return fmt.Errorf("--dry-run: want client, server or none, not %q", o.dryRun)
	}
	objs, err := o.objects(ctx, cmd, kc)
	if err != nil {
		return err
	}
	var errs []error
	for _, obj := range objs {
		if err := o.create(ctx, cmd, kc, obj); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// objects are the campaigns to create: the file's, or one from flags.
func (o *submitOptions) objects(ctx context.Context, cmd *cobra.Command, kc *kube) ([]*unstructured.Unstructured, error) {
	f := cmd.Flags()
	if o.file != "" {
		for _, name := range submitSpecFlags {
			if f.Changed(name) {
				return nil, fmt.Errorf("-f and --%s exclude each other: set the field in the file", name)
			}
		}
		return readCampaignFile(o.file, cmd.InOrStdin(), kc.namespace, kc.nsGiven)
	}
	if len(o.spec.queryFiles) > 0 {
		o.spec.queries = o.spec.queryFiles[0]
	}
	if err := o.spec.checkRequired(); err != nil {
		return nil, err
	}
	if needsJoin(o.spec.queryFiles) {
		dir, err := os.MkdirTemp("", "blastfleet-queries-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		if o.spec.queries, err = joinQueries(ctx, dir, o.spec.queryFiles, o.spec.program); err != nil {
			return nil, err
		}
	}
	if localQueries(o.spec.queries) {
		if err := checkLocalQueries(o.spec.queries); err != nil {
			return nil, err
		}
	}
	if localQueries(o.spec.queries) && ownStore(f.Changed) {
		return nil, fmt.Errorf("--queries %s is a file here, uploaded beside the campaign: the --queries-* flags are for queries already on another store", o.spec.queries)
	}
	spec := o.spec
	rest, lists, err := splitTaxidLists(o.spec.blastOptions)
	if err != nil {
		return nil, err
	}
	spec.blastOptions = rest
	o.flagOptions = append([]string{}, rest...)
	obj, err := spec.object(f.Changed, kc.namespace, databaseStorageIf(ctx, kc, &o.spec, cmd))
	if err != nil {
		return nil, err
	}
	dryRun := o.dryRun != "none"
	if localQueries(o.spec.queries) {
		if err := uploadQueries(ctx, obj, o.spec.queries, o.spec.program, dryRun, cmd.ErrOrStderr()); err != nil {
			return nil, err
		}
	}
	for _, list := range lists {
		if err := list.put(ctx, obj, dryRun, cmd.ErrOrStderr()); err != nil {
			return nil, err
		}
	}
	return []*unstructured.Unstructured{obj}, nil
}

// databaseStorageIf reads the database's storage when some output field
// is to come from it.
func databaseStorageIf(ctx context.Context, kc *kube, s *submitSpec, cmd *cobra.Command) *v1alpha1.ObjectStorage {
	if !s.needsDatabaseStorage(cmd.Flags().Changed) {
		return nil
	}
	return databaseStorage(ctx, kc, kc.namespace, s.database, cmd.ErrOrStderr())
}

func (o *submitOptions) create(ctx context.Context, cmd *cobra.Command, kc *kube, obj *unstructured.Unstructured) error {
	w := cmd.OutOrStdout()
	if err := checkSearch(obj, o.flagOptions); err != nil {
		// The API server's refusal comes first, in its words, as kubectl
		// shows it; what only the operator would refuse, once created,
		// is refused here.
		if o.dryRun != "client" {
			if serr := kc.c.Create(ctx, obj.DeepCopy(), client.FieldOwner("blastfleet"), client.DryRunAll); serr != nil {
				return kc.explain(serr)
			}
		}
		return err
	}
	if o.dryRun == "client" {
		return printObject(w, "yaml", obj.Object)
	}
	opts := []client.CreateOption{client.FieldOwner("blastfleet")}
	if o.dryRun == "server" {
		opts = append(opts, client.DryRunAll)
	}
	if err := kc.c.Create(ctx, obj, opts...); err != nil {
		return kc.explain(err)
	}
	if o.dryRun == "server" {
		obj.SetManagedFields(nil)
		return printObject(w, "yaml", obj.Object)
	}
	fmt.Fprintf(w, "%s/%s created\n", campaignResource, obj.GetName())
	cli.Hint(cmd.ErrOrStderr(), "follow it with: %s", kc.suggest(obj.GetNamespace(), "status "+obj.GetName()+" --watch"))
	return nil
}
