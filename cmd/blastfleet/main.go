// Command blastfleet is the blastfleet CLI: it prepares sharded BLAST
// databases and talks to campaigns. Installed as kubectl-blastfleet on PATH
// it also runs as the kubectl plugin "kubectl blastfleet".
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/blastfleet/blastfleet/internal/cli"
	"github.com/blastfleet/blastfleet/internal/cli/campaigncmd"
	"github.com/blastfleet/blastfleet/internal/cli/dbcmd"
	"github.com/blastfleet/blastfleet/internal/cli/devexec"
	"github.com/blastfleet/blastfleet/internal/cli/hpccmd"
	"github.com/blastfleet/blastfleet/internal/cli/kubecmd"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := newRootCmd(filepath.Base(os.Args[0])).ExecuteContext(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "blastfleet:", err)
		os.Exit(cli.ExitCode(err)) // one code per campaign outcome (docs/cli.md)
	}
}

// newRootCmd builds the command tree: the root command (cli.NewRoot) and
// the groups, each a package below internal/cli. binary is the name we
// were run as: kubectl runs plugins as kubectl-<name>, and help should
// then say "kubectl blastfleet". New groups are wired here.
func newRootCmd(binary string) *cobra.Command {
	cli.Version = version // for the user agent of the cluster commands
	root, opts := cli.NewRoot(binary)
	root.AddCommand(
		newVersionCmd(),
		dbcmd.New(opts),
		campaigncmd.New(opts),
		devexec.New(),
		hpccmd.New(opts, &kubecmd.Locator{}),
	)
	kubecmd.Add(root)
	return root
}
