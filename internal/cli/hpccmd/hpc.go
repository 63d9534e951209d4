package hpccmd

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/blastfleet/blastfleet/internal/cli"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// Locator finds a SearchCampaign's ledger on a cluster (package kubecmd);
// nil where the CLI has no cluster access to offer.
type Locator interface {
	AddFlags(cmd *cobra.Command)
	Location(ctx context.Context, cmd *cobra.Command, name string) (string, error)
}

// New is the hpc command group.
func New(opts *cli.Options, loc Locator) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hpc",
		Short: "Join a campaign from an HPC site: Slurm jobs that work its ledger beside the cluster's partitions",
		Long: `An HPC site joins a campaign with Slurm jobs: each runs blastfleet-engine
under srun (or mpirun) against the campaign's ledger in object storage, and
leases chunks of queries exactly as the cluster's partitions do. The
campaign's status, metrics and report tell the site's work apart.

CAMPAIGN is a ledger location (s3://bucket/prefix, as "blastfleet campaign
plan" wrote it or a SearchCampaign's status.location), or the name of a
SearchCampaign on the current cluster.

Cancelling a site's jobs, or their time limit, is a stop, not a failure:
the chunks they held go back to the campaign. See docs/hpc.md.`,
	}
	cmd.AddCommand(newSubmitCmd(opts, loc), newStatusCmd(loc), newCancelCmd(loc))
	return cmd
}

// campaign is a campaign's ledger as the hpc commands use it.
type campaign struct {
	location string
	name     string // the plan's
}

// resolve finds CAMPAIGN's ledger and reads its plan, so a typo fails
// here, not in a queued job hours later.
func resolve(ctx context.Context, cmd *cobra.Command, loc Locator, arg string) (*campaign, error) {
	location := arg
	if !isLocation(arg) {
		if loc == nil {
			return nil, fmt.Errorf("campaign %q: not a ledger location (s3://bucket/prefix or a directory)", arg)
		}
		var err error
		if location, err = loc.Location(ctx, cmd, arg); err != nil {
			return nil, err
		}
	}
	st, err := objstore.Open(ctx, location)
	if err != nil {
		return nil, fmt.Errorf("campaign %s: %w", location, err)
	}
	plan, err := ledger.ReadPlan(ctx, st)
	if err != nil {
		return nil, fmt.Errorf("campaign %s: %w (is it planned? blastfleet campaign plan writes it)", location, err)
	}
	return &campaign{location: location, name: plan.Name}, nil
}

// isLocation tells a ledger location from a SearchCampaign name, which
// has neither a scheme nor a path separator.
func isLocation(arg string) bool {
	return strings.HasPrefix(arg, "s3://") || strings.ContainsRune(arg, '/') || filepath.IsAbs(arg) || strings.HasPrefix(arg, ".")
}

func addLocatorFlags(cmd *cobra.Command, loc Locator) {
	if loc != nil {
		loc.AddFlags(cmd)
	}
}
