package dbcmd

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/dustin/go-humanize"
	"github.com/spf13/cobra"

	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

func newDBStatusCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "status LOCATION",
		Short: "Show a sharded database's current build and whether each of its replicas holds it",
		Long: `Show the database at LOCATION (a directory or s3://bucket/prefix holding
manifest.json): its current build, and each replica recorded in its
manifest with its state: ok when the replica holds the very build (same
build id, files, sizes and SHA-256s in its copy of the build's manifest),
else why it is refused. Readers never read a refused replica.

LOCATION reads the database's storage variables (BLASTFLEET_DATABASE_AWS_*,
else AWS_*); replica N reads BLASTFLEET_REPLICA<N>_AWS_* (else AWS_*).`,
		Example: `  blastfleet db status s3://dbs/nt`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			loc, err := location("LOCATION", args[0])
			if err != nil {
				return err
			}
			return dbStatus(cmd.Context(), cmd.OutOrStdout(), loc)
		},
	}
}

func dbStatus(ctx context.Context, w io.Writer, loc string) error {
	st, err := objstore.OpenExistingAs(ctx, objstore.RoleDatabase, loc)
	if err != nil {
		return err
	}
	cur, err := manifest.Load(ctx, st)
	if err != nil {
		return err
	}
	// The build's own copy, as campaigns pin it, for its SHA-256.
	m, sum, err := manifest.LoadPinned(ctx, st, cur.Key(), "")
	if err != nil {
		return err
	}
	var bytes int64
	for _, f := range m.Common {
		bytes += f.Size
	}
	for _, s := range m.Shards {
		bytes += s.Bytes()
	}
	fmt.Fprintf(w, "database %s (%s) at %s\n", m.Name, m.Type, loc)
	fmt.Fprintf(w, "build %s: %d sequences, %d letters, %d shards, %s; manifest SHA-256 %s\n",
		m.Build, m.Sequences, m.Letters, len(m.Shards), humanize.IBytes(uint64(bytes)), sum)
	if len(cur.Replicas) == 0 {
		fmt.Fprintln(w, "replicas: none")
		return nil
	}
	fmt.Fprintln(w, "replicas:")
	for i, r := range cur.Replicas {
		fmt.Fprintf(w, "  %d %s: %s\n", i+1, r.Location, replicaState(ctx, m, i+1, r.Location))
	}
	return nil
}

// replicaState is "ok" or why the replica is refused.
func replicaState(ctx context.Context, m *manifest.Manifest, n int, loc string) string {
	st, err := objstore.OpenExistingAs(ctx, objstore.ReplicaRole(n), loc)
	if err == nil {
		err = manifest.CheckReplica(ctx, m, st)
	}
	if err != nil {
		return "refused: " + strings.TrimPrefix(err.Error(), manifest.ErrReplica.Error()+": ")
	}
	return "ok"
}
