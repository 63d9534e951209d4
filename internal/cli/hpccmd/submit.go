package hpccmd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/blastfleet/blastfleet/internal/cli"
)

type submitOptions struct {
	job    Job
	script string
	dryRun bool
}

func newSubmitCmd(opts *cli.Options, loc Locator) *cobra.Command {
	o := &submitOptions{}
	cmd := &cobra.Command{
		Use:   "submit CAMPAIGN --site NAME [--nodes N] [--ntasks-per-node M] [flags]",
		Short: "Write the sbatch script that runs one partition of CAMPAIGN at this site, and submit it",
		Long: `Write the sbatch script that runs one partition of CAMPAIGN at this site,
and submit it with sbatch (--dry-run prints it instead, for sites that
submit by hand). The job runs blastfleet-engine under "srun --mpi=pmix" when
Slurm has PMIx, else under mpirun, with --partition-id SITE-<job id>.

Submit several jobs to run several partitions. Credentials are not written
into the script: sbatch exports the submitting shell's AWS_* variables (or
AWS_PROFILE) and AWS_ENDPOINT_URL to the job, and for each
--database-replica N its BLASTFLEET_REPLICA<N>_AWS_* variables.`,
		Example: `  blastfleet hpc submit s3://campaigns/team-a/nt-vs-env --site hpc-a --nodes 4 --ntasks-per-node 32 --time 12:00:00
  blastfleet hpc submit nt-vs-env --site hpc-a --nodes 2 --ntasks-per-node 16 --partition long --dry-run > job.sbatch`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd, loc, args[0]) },
	}
	f := cmd.Flags()
	f.StringVar(&o.job.Site, "site", "", "this site's name in the campaign (required), e.g. hpc-a")
	f.IntVar(&o.job.Nodes, "nodes", 1, "nodes of the job (sbatch --nodes)")
	f.IntVar(&o.job.TasksPerNode, "ntasks-per-node", 2, "searching MPI ranks per node (sbatch --ntasks-per-node); the master is one rank more, on the first node")
	f.IntVar(&o.job.CPUsPerTask, "cpus-per-task", 1, "cores per rank (sbatch --cpus-per-task): each worker runs BLAST with this many threads")
	f.StringVar(&o.job.Partition, "partition", "", "Slurm partition (queue) (sbatch --partition)")
	f.StringVar(&o.job.Time, "time", "", "time limit (sbatch --time); reaching it stops the partition cleanly")
	f.StringVar(&o.job.Account, "account", "", "account to charge (sbatch --account)")
	f.StringArrayVar(&o.job.Extra, "sbatch", nil, "another sbatch option for the script, e.g. --sbatch=--qos=high (repeatable)")
	f.StringVar(&o.job.Engine, "engine", "blastfleet-engine", "the engine's path on the compute nodes")
	f.StringVar(&o.job.Launcher, "launcher", "auto", "how ranks start: auto (srun --mpi=pmix where Slurm has PMIx, else mpirun), srun or mpirun")
	f.StringArrayVar(&o.job.DatabaseReplicas, "database-replica", nil, "a store holding the campaign's database build too (the engine's --database-replica; checked before use): DIR or s3://bucket/prefix, the N-th with BLASTFLEET_REPLICA<N>_AWS_* exported (repeatable)")
	f.StringVar(&o.job.CacheDir, "cache-dir", "", "node-local scratch for the shard cache (default $TMPDIR or /tmp); the job removes its own at the end")
	f.StringVar(&o.script, "script", "", "where to write the script (default ./blastfleet-CAMPAIGN-SITE.sbatch)")
	f.BoolVar(&o.dryRun, "dry-run", false, "print the script and submit nothing")
	_ = cmd.MarkFlagRequired("site")
	addLocatorFlags(cmd, loc)
	return cmd
}

func (o *submitOptions) run(cmd *cobra.Command, loc Locator, arg string) error {
	c, err := resolve(cmd.Context(), cmd, loc, arg)
	if err != nil {
		return err
	}
	o.job.Campaign, o.job.CampaignName = c.location, c.name
	o.job.Output = JobName(c.name, o.job.Site) + "-%j.log"
	script, err := o.job.Script()
	if err != nil {
		return err
	}
	if o.dryRun {
		_, err := fmt.Fprint(cmd.OutOrStdout(), script)
		return err
	}
	path := o.script
	if path == "" {
		path = JobName(c.name, o.job.Site) + ".sbatch"
	}
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		return fmt.Errorf("writing the script: %w", err)
	}
	out, err := exec.CommandContext(cmd.Context(), "sbatch", "--parsable", path).CombinedOutput()
	if err != nil {
		return fmt.Errorf("sbatch %s: %w: %s (is this a Slurm login node? --dry-run prints the script)", path, err, strings.TrimSpace(string(out)))
	}
	id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";")
	abs, _ := filepath.Abs(path)
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "submitted job %s: site %s works campaign %s with %d searching ranks (script %s)\n",
		id, o.job.Site, c.name, o.job.Nodes*o.job.TasksPerNode, abs)
	cli.Hint(cmd.ErrOrStderr(), "follow it: blastfleet hpc status %s --site %s", arg, o.job.Site)
	return nil
}
