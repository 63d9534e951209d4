package devcmd

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/blastfleet/blastfleet/internal/devstack"
)

type devDownOptions struct {
	devOptions
	purge   bool
	timeout time.Duration
}

func newDevDownCmd() *cobra.Command {
	o := &devDownOptions{}
	cmd := &cobra.Command{
		Use:   "down",
		Short: "Stop the local stack and check that nothing of it is left running",
		Long: `Stop the local stack: the supervisor stops the local runner (and with it
every launcher, mpirun and engine rank it started), the operator,
Prometheus, MinIO, kube-apiserver and etcd. If it has not exited within
--timeout it is killed. Then every process still carrying the stack's
marker in its environment, or recorded in its state, is killed, and down
checks that none is left.

The data (etcd's objects, MinIO's buckets, Prometheus's series, logs) stays
for the next "dev up"; --purge deletes the stack's directory.`,
		Example: `  blastfleet dev down
  blastfleet dev down --purge`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := o.resolveDir()
			if err != nil {
				return err
			}
			rep, err := devstack.Down(cmd.Context(), dir, o.purge, o.timeout, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			switch {
			case rep.WasRunning:
				fmt.Fprintf(w, "The local stack in %s is stopped; no process of it is left.\n", dir)
			case len(rep.Killed) > 0:
				fmt.Fprintf(w, "No supervisor was running in %s; killed %d processes a crashed stack left.\n", dir, len(rep.Killed))
			default:
				fmt.Fprintf(w, "No local stack runs in %s.\n", dir)
			}
			if rep.Purged {
				fmt.Fprintf(w, "Removed %s.\n", dir)
			} else if rep.WasRunning {
				fmt.Fprintf(w, "Its data stays in %s for the next dev up (dev down --purge removes it).\n", dir)
			}
			return nil
		},
	}
	o.addFlags(cmd)
	cmd.Flags().BoolVar(&o.purge, "purge", false, "also delete the stack's directory: etcd's objects, MinIO's data, logs")
	cmd.Flags().DurationVar(&o.timeout, "timeout", time.Minute, "how long the supervisor gets to stop everything before it is killed")
	return cmd
}
