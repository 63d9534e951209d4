// Package campaigncmd is the blastfleet CLI's campaign commands, which
// work on a campaign's ledger in object storage without a cluster:
// campaign plan, status, results, report and assemble.
package campaigncmd

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/blastfleet/blastfleet/internal/cli"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// New groups the campaign commands: plan, status, results, report,
// assemble.
func New(root *cli.Options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "campaign",
		Short: "Plan campaigns, follow their progress and collect their results",
		Long: `A campaign is one query set against one sharded database, cut into chunks
that any number of partitions (blastfleet-engine --campaign, under mpirun,
an MPIJob or Slurm) lease from a ledger in object storage. The ledger lives
under the campaign's location: s3://bucket/prefix (AWS_* variables for
credentials, AWS_ENDPOINT_URL for MinIO) or a directory.`,
		Example: `  blastfleet campaign plan --queries s3://in/q.fa.gz --database s3://dbs/nt \
      --program blastn --chunk-letters 2000000 --output s3://work/campaigns/run1
  mpirun -np 17 blastfleet-engine --campaign s3://work/campaigns/run1 --partition-id site-a-1
  blastfleet campaign status s3://work/campaigns/run1 --watch
  blastfleet campaign results s3://work/campaigns/run1 -o run1.tsv
  blastfleet campaign report --campaign s3://work/campaigns/run1 -o run1-report.html`,
	}
	cmd.AddCommand(newCampaignPlanCmd(root), newCampaignStatusCmd(root), newCampaignResultsCmd(root), newCampaignReportCmd(root),
		newCampaignAssembleCmd(root))
	return cmd
}

// absLocation makes a directory or file location absolute, so a plan (and
// the engine command printed for it) means the same from any directory;
// s3:// locations are kept as given, without a trailing slash.
func absLocation(loc string) (string, error) {
	if strings.HasPrefix(loc, "s3://") {
		return strings.TrimRight(loc, "/"), nil
	}
	return filepath.Abs(loc)
}

// defaultCampaignName is the last element of the campaign's location.
func defaultCampaignName(loc string) string {
	loc = strings.TrimRight(strings.TrimPrefix(loc, "s3://"), "/"+string(filepath.Separator))
	if strings.Contains(loc, "/") {
		return path.Base(loc)
	}
	return filepath.Base(loc)
}

// openCampaign opens an existing campaign's ledger at loc; it does not
// create a directory that is not there.
func openCampaign(ctx context.Context, loc string) (*ledger.Ledger, error) {
	st, err := openCampaignStore(ctx, loc)
	if err != nil {
		return nil, err
	}
	l, err := ledger.Open(ctx, st, ledger.Options{})
	if err != nil {
		return nil, fmt.Errorf("campaign %s: %w", loc, err)
	}
	return l, nil
}

// openCampaignStore opens the store at an existing campaign's location
// without reading it; objstore.Open would create a missing directory.
func openCampaignStore(ctx context.Context, loc string) (objstore.Store, error) {
	if strings.TrimSpace(loc) == "" {
		return nil, fmt.Errorf("campaign location is empty")
	}
	if !strings.HasPrefix(loc, "s3://") {
		if fi, err := os.Stat(loc); err != nil {
			return nil, fmt.Errorf("campaign %s: %w", loc, err)
		} else if !fi.IsDir() {
			return nil, fmt.Errorf("campaign %s: not a directory", loc)
		}
	}
	return objstore.Open(ctx, loc)
}
