package hpccmd

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/blastfleet/blastfleet/internal/cli"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

func newStatusCmd(loc Locator) *cobra.Command {
	var site string
	cmd := &cobra.Command{
		Use:   "status CAMPAIGN [--site NAME]",
		Short: "Show a campaign's Slurm jobs at this site and every site's progress from the ledger",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			c, err := resolve(ctx, cmd, loc, args[0])
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			jobs, err := siteJobs(ctx, c.name, site)
			if err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "no Slurm queue here (%v): showing the ledger only\n", err)
			} else if len(jobs) == 0 {
				fmt.Fprintf(w, "no job of campaign %s in Slurm's queue here\n", c.name)
			} else {
				tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "JOB\tSITE\tSTATE\tELAPSED\tLIMIT\tNODES\tREASON/NODELIST")
				for _, j := range jobs {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", j.ID, j.site(c.name), j.State, j.Elapsed, j.Limit, j.Nodes, j.Reason)
				}
				tw.Flush()
			}
			st, err := objstore.Open(ctx, c.location)
			if err != nil {
				return err
			}
			s, err := ledger.ReadStatus(ctx, st)
			if err != nil {
				return fmt.Errorf("campaign %s: %w", c.location, err)
			}
			fmt.Fprintf(w, "campaign %s: %d of %d queries done, %d failed; %d of %d chunks committed\n",
				c.name, s.QueriesDone, s.Queries, s.QueriesFailed, s.Committed, s.Chunks)
			for _, ss := range s.Sites {
				if site != "" && ss.Name != site {
					continue
				}
				fmt.Fprintf(w, "  site %s: %s\n", ss.Name, cli.SiteLine(ss.QueriesDone, ss.ChunksCommitted, ss.Running, ss.LettersPerSecond))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&site, "site", "", "only this site's jobs and progress")
	addLocatorFlags(cmd, loc)
	return cmd
}
