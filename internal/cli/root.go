package cli

import (
	"fmt"
	"io"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/spf13/cobra"
)

// Version is the CLI's version, set at build time in cmd/blastfleet
// (-ldflags "-X main.version=v0.3.0"), which copies it here; empty in a
// development build.
var Version = ""

// Options holds the flags every command shares.
type Options struct {
	verbosity int
}

// Logger logs to w at the chosen verbosity; -v 0 still shows errors and
// V(0) messages, which commands keep for things a user should see.
func (o *Options) Logger(w io.Writer) logr.Logger {
	return funcr.New(func(prefix, args string) {
		if prefix != "" {
			fmt.Fprintln(w, prefix, args)
			return
		}
		fmt.Fprintln(w, args)
	}, funcr.Options{Verbosity: o.verbosity})
}

// NewRoot builds the root command, without subcommands, and the options
// its flags set. binary is the name we were run as: kubectl runs plugins
// as kubectl-<name>, and help should then say "kubectl blastfleet".
func NewRoot(binary string) (*cobra.Command, *Options) {
	// Hooks of every level run (a subcommand's PersistentPreRunE does not
	// hide the root's), so the SilenceUsage below holds everywhere.
	cobra.EnableTraverseRunHooks = true

	opts := &Options{}
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
	return root, opts
}
