package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/blastfleet/blastfleet/internal/shared/buildinfo"
)

// version is set at build time: -ldflags "-X main.version=v0.3.0".
var version = ""

func versionString() string { return buildinfo.Line("blastfleet", version) }

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the blastfleet version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintln(cmd.OutOrStdout(), versionString())
			return err
		},
	}
}
