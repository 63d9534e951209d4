package devcmd

import (
	"github.com/spf13/cobra"

	"github.com/blastfleet/blastfleet/internal/cli"
	"github.com/blastfleet/blastfleet/internal/cli/clitest"
)

// testCLI is the root command with the dev commands.
var testCLI = clitest.Group(func(root *cobra.Command, _ *cli.Options) { root.AddCommand(New()) })

// run runs args on a fresh testCLI.
var run = testCLI.Run
