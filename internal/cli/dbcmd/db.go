// Package dbcmd is the blastfleet CLI's db commands: db shard builds a
// sharded BLAST database in object storage.
package dbcmd

import (
	"github.com/spf13/cobra"

	"github.com/blastfleet/blastfleet/internal/cli"
)

// New groups the database commands (db shard, later db ls, ...).
func New(root *cli.Options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "db",
		Short: "Prepare and inspect sharded BLAST databases",
	}
	cmd.AddCommand(newDBShardCmd(root))
	return cmd
}
