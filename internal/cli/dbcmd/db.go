// Package dbcmd is the blastfleet CLI's db commands: db shard builds a
// sharded BLAST database in object storage, db replicate copies a build
// to another store, db status shows a database and its replicas.
package dbcmd

import (
	"github.com/spf13/cobra"

	"github.com/blastfleet/blastfleet/internal/cli"
)

// New groups the database commands: db shard, db replicate, db status.
func New(root *cli.Options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "db",
		Short: "Prepare and inspect sharded BLAST databases",
	}
	cmd.AddCommand(newDBShardCmd(root), newDBReplicateCmd(), newDBStatusCmd())
	return cmd
}
