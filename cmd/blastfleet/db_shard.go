package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/blastfleet/blastfleet/internal/manifest"
	"github.com/blastfleet/blastfleet/internal/objstore"
	"github.com/blastfleet/blastfleet/internal/shard"
)

type dbShardOptions struct {
	input   string
	dbType  string
	shards  int
	output  string
	name    string
	force   bool
	workDir string
}

func newDBShardCmd(root *rootOptions) *cobra.Command {
	o := &dbShardOptions{}
	cmd := &cobra.Command{
		Use:   "shard --input FILE --type nucl|prot --shards N --output DIR|s3://bucket/prefix",
		Short: "Build a sharded BLAST database from a FASTA file",
		Long: `Build a sharded BLAST database from a FASTA file (plain or gzip).

The input is validated completely before anything is written. Sequences are
balanced into shards by letters; each shard is a BLAST database built by
makeblastdb plus an alias file carrying the whole database's statistics, so
searching the shards gives the same E-values as searching the whole
database. Shard files go to the output (a directory or s3://bucket/prefix,
with AWS_* variables for credentials and AWS_ENDPOINT_URL for MinIO), and
manifest.json is written last. Re-running with the same input is a no-op.

Needs makeblastdb (BLAST+) on PATH.`,
		Example: `  blastfleet db shard --input swissprot.fa.gz --type prot --shards 8 --output s3://dbs/swissprot`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			ctx := cmd.Context()
			out, err := objstore.Open(ctx, o.output)
			if err != nil {
				return fmt.Errorf("--output: %w", err)
			}
			m, err := shard.Build(ctx, shard.Options{
				Input:    o.input,
				Type:     manifest.DBType(o.dbType),
				Shards:   o.shards,
				Output:   out,
				Name:     o.name,
				Force:    o.force,
				WorkDir:  o.workDir,
				Progress: cmd.ErrOrStderr(),
				Log:      root.logger(cmd.ErrOrStderr()),
			})
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s: %d sequences, %d letters, %d shards, manifest %s\n",
				m.Name, m.Sequences, m.Letters, len(m.Shards), out.URL(manifest.FileName))
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.input, "input", "", "FASTA file to shard, plain or gzip (required)")
	f.StringVar(&o.dbType, "type", "", "sequence type: nucl or prot (required)")
	f.IntVar(&o.shards, "shards", 0, "number of shards, at least 1 (required)")
	f.StringVar(&o.output, "output", "", "where to write the database: a directory or s3://bucket/prefix (required)")
	f.StringVar(&o.name, "name", "", "database name (default: the input's base name without .fa/.fasta/.gz)")
	f.BoolVar(&o.force, "force", false, "rebuild even if the output already holds a database, from this input or another")
	f.StringVar(&o.workDir, "work-dir", "", "directory for temporary build files (default: the system temp directory)")
	for _, name := range []string{"input", "type", "shards", "output"} {
		_ = cmd.MarkFlagRequired(name) // cannot fail: the flags exist
	}
	return cmd
}

// validate checks flags before anything is opened, with errors that name
// the flag to fix.
func (o *dbShardOptions) validate() error {
	var errs []error
	if strings.HasPrefix(o.input, "s3://") {
		errs = append(errs, errors.New("--input must be a local file (s3:// inputs are not supported yet)"))
	}
	if o.dbType != string(manifest.Nucleotide) && o.dbType != string(manifest.Protein) {
		errs = append(errs, fmt.Errorf("--type must be nucl or prot, not %q", o.dbType))
	}
	if o.shards < 1 {
		errs = append(errs, fmt.Errorf("--shards must be ≥ 1, not %d", o.shards))
	}
	if strings.TrimSpace(o.output) == "" {
		errs = append(errs, errors.New("--output must not be empty"))
	}
	return errors.Join(errs...)
}
