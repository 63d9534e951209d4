package dbcmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/blastfleet/blastfleet/internal/storage/dbcopy"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

type dbReplicateOptions struct {
	from, to, build string
	parallel        int
}

func newDBReplicateCmd() *cobra.Command {
	o := &dbReplicateOptions{}
	cmd := &cobra.Command{
		Use:   "replicate --from LOCATION --to LOCATION [--build ID]",
		Short: "Copy a sharded database's build to another store, checked against its manifest, and record the replica",
		Long: `Copy one build of a sharded database (default: its current build) from
--from to --to, a replica on another endpoint or bucket, or a directory.

Every file is checked against the manifest's size and SHA-256 while it
streams; a file that differs fails the copy, naming it, and is not written.
The copy is resumable: files already in the replica with the right size and
SHA-256 (read back) are kept. The build's manifest is written to the
replica last, byte for byte, so a reader never takes a half-copied replica
for a ready one. Then the replica is recorded in --from's manifest.json
(a conditional write: a rebuild meanwhile is not overwritten), and the
replica's manifest.json gets the same list.

--from reads the database's storage variables (BLASTFLEET_DATABASE_AWS_*,
else AWS_*). A replica reads BLASTFLEET_REPLICA<N>_AWS_* (else AWS_*), N
being its place among the database's recorded replicas (the next one for
a new replica): the numbering "db status" and the engine use.`,
		Example: `  blastfleet db replicate --from s3://dbs/nt --to s3://dbs-eu/nt
  BLASTFLEET_REPLICA1_AWS_ENDPOINT_URL=https://minio-b:9000 blastfleet db replicate --from s3://dbs/nt --to s3://dbs/nt
  blastfleet db replicate --from s3://dbs/nt --to /scratch/dbs/nt --build 0f3a9c2e81b4d7a6`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd) },
	}
	f := cmd.Flags()
	f.StringVar(&o.from, "from", "", "the database: a directory or s3://bucket/prefix holding manifest.json (required)")
	f.StringVar(&o.to, "to", "", "the replica: a directory or s3://bucket/prefix (required)")
	f.StringVar(&o.build, "build", "", "the build to copy: its id, or builds/<id> (default: the current build)")
	f.IntVar(&o.parallel, "parallel", dbcopy.DefaultParallel, "files copied at once")
	_ = cmd.MarkFlagRequired("from") // cannot fail: the flags exist
	_ = cmd.MarkFlagRequired("to")
	return cmd
}

func (o *dbReplicateOptions) run(cmd *cobra.Command) error {
	ctx := cmd.Context()
	from, err := location("--from", o.from)
	if err != nil {
		return err
	}
	to, err := location("--to", o.to)
	if err != nil {
		return err
	}
	if o.parallel < 1 {
		return fmt.Errorf("--parallel must be ≥ 1, not %d", o.parallel)
	}
	primary, err := objstore.OpenExistingAs(ctx, objstore.RoleDatabase, from)
	if err != nil {
		return fmt.Errorf("--from: %w", err)
	}
	build := o.build
	if build == "" {
		cur, err := manifest.Load(ctx, primary)
		if err != nil {
			return fmt.Errorf("--from: %w", err)
		}
		if cur.Build == "" {
			return errors.New("--from: the database's build is not versioned (built before builds/<id>): shard it again to replicate it")
		}
		build = cur.Build
	} else if !strings.HasPrefix(build, manifest.BuildsDir+"/") {
		build = manifest.BuildsDir + "/" + build
	}
	r := &replication{primary: primary, primaryLoc: from, primaryRole: objstore.RoleDatabase, build: build, targets: []string{to}, parallel: o.parallel,
		stdout: cmd.OutOrStdout(), progress: cmd.ErrOrStderr()}
	if err := r.run(ctx); err != nil {
		return fmt.Errorf("--to: %w", err)
	}
	return nil
}
