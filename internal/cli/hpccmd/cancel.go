package hpccmd

import (
	"fmt"
	"os/exec"
	"strings"

	"github.com/spf13/cobra"
)

func newCancelCmd(loc Locator) *cobra.Command {
	var site string
	cmd := &cobra.Command{
		Use:   "cancel CAMPAIGN --site NAME",
		Short: "Cancel a site's Slurm jobs of a campaign: a stop, not a failure",
		Long: `Cancel a site's Slurm jobs of a campaign (scancel). Slurm sends their ranks
SIGTERM: each partition records the chunks it held as stopped and releases
them for the campaign's other partitions, so nothing is lost and no
attempt counts as failed. Results already committed stay.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			c, err := resolve(ctx, cmd, loc, args[0])
			if err != nil {
				return err
			}
			jobs, err := siteJobs(ctx, c.name, site)
			if err != nil {
				return err
			}
			if len(jobs) == 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "no job of campaign %s at site %s in Slurm's queue\n", c.name, site)
				return nil
			}
			ids := make([]string, len(jobs))
			for i, j := range jobs {
				ids[i] = j.ID
			}
			if out, err := exec.CommandContext(ctx, "scancel", ids...).CombinedOutput(); err != nil {
				return fmt.Errorf("scancel %s: %w: %s", strings.Join(ids, " "), err, strings.TrimSpace(string(out)))
			}
			fmt.Fprintf(cmd.OutOrStdout(), "cancelled jobs %s of campaign %s at site %s: their chunks go back to the campaign\n",
				strings.Join(ids, ", "), c.name, site)
			return nil
		},
	}
	cmd.Flags().StringVar(&site, "site", "", "the site whose jobs to cancel (required)")
	_ = cmd.MarkFlagRequired("site")
	addLocatorFlags(cmd, loc)
	return cmd
}
