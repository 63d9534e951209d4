// Command blastfleet is the blastfleet CLI: it prepares sharded BLAST
// databases and talks to campaigns. Installed as kubectl-blastfleet on PATH
// it also runs as the kubectl plugin "kubectl blastfleet".
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/spf13/cobra"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := newRootCmd(filepath.Base(os.Args[0])).ExecuteContext(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "blastfleet:", err)
		os.Exit(1)
	}
}

// rootOptions holds the flags every command shares.
type rootOptions struct {
	verbosity int
}

// logger logs to w at the chosen verbosity; -v 0 still shows errors and
// V(0) messages, which commands keep for things a user should see.
func (o *rootOptions) logger(w io.Writer) logr.Logger {
	return funcr.New(func(prefix, args string) {
		if prefix != "" {
			fmt.Fprintln(w, prefix, args)
			return
		}
		fmt.Fprintln(w, args)
	}, funcr.Options{Verbosity: o.verbosity})
}

// newRootCmd builds the command tree. binary is the name we were run as:
// kubectl runs plugins as kubectl-<name>, and help should then say
// "kubectl blastfleet". New commands are added with root.AddCommand here.
func newRootCmd(binary string) *cobra.Command {
	// Hooks of every level run (a subcommand's PersistentPreRunE does not
	// hide the root's), so the SilenceUsage below holds everywhere.
	cobra.EnableTraverseRunHooks = true

	opts := &rootOptions{}
	root := &cobra.Command{
		Use:   "blastfleet",
		Short: "Run massively parallel BLAST search campaigns on Kubernetes and HPC",
		Long: `blastfleet runs massively parallel BLAST search campaigns: it shards BLAST
databases into object storage (S3, MinIO or a directory) so that sharded
searches give the same hits and E-values as the whole database, and drives
SearchCampaigns on Kubernetes (and Slurm).

Installed on PATH as kubectl-blastfleet, it also runs as a kubectl plugin:
"kubectl blastfleet ...".`,
		SilenceErrors: true, // main prints the error once
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			// Flags parsed fine: from here on errors are runtime errors,
			// and a usage dump would only hide them.
			cmd.SilenceUsage = true
			return nil
		},
	}
	if binary == "kubectl-blastfleet" {
		root.Annotations = map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl blastfleet"}
	}
	root.PersistentFlags().IntVarP(&opts.verbosity, "verbosity", "v", 0, "log verbosity (0 = quiet)")
	root.AddCommand(
		newVersionCmd(),
		newDBCmd(opts),
		newCampaignCmd(opts),
		newDevCmd(),
	)
	addClusterCommands(root)
	return root
}
