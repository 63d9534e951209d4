package campaigncmd

import (
	"github.com/spf13/cobra"

	"github.com/blastfleet/blastfleet/internal/cli"
	"github.com/blastfleet/blastfleet/internal/cli/clitest"
)

// testCLI is the root command with the campaign commands.
var testCLI = clitest.Group(func(root *cobra.Command, opts *cli.Options) { root.AddCommand(New(opts)) })

// run runs args on a fresh testCLI.
var run = testCLI.Run
