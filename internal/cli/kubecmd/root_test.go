package kubecmd

import (
	"github.com/spf13/cobra"

	"github.com/blastfleet/blastfleet/internal/cli"
	"github.com/blastfleet/blastfleet/internal/cli/clitest"
)

// testCLI is the root command with the cluster commands.
var testCLI = clitest.Group(func(root *cobra.Command, _ *cli.Options) { Add(root) })
