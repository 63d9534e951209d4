package main

import (
	"github.com/spf13/cobra"

	"github.com/blastfleet/blastfleet/internal/cli"
)

// newDBCmd groups the database commands (db shard, later db ls, ...).
func newDBCmd(root *cli.Options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "db",
		Short: "Prepare and inspect sharded BLAST databases",
	}
	cmd.AddCommand(newDBShardCmd(root))
	return cmd
}
