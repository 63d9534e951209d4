package main

import "github.com/spf13/cobra"

// newDBCmd groups the database commands (db shard, later db ls, ...).
func newDBCmd(root *rootOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "db",
		Short: "Prepare and inspect sharded BLAST databases",
	}
	cmd.AddCommand(newDBShardCmd(root))
	return cmd
}
