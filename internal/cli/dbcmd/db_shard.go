package dbcmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/blastfleet/blastfleet/internal/cli"
	"github.com/blastfleet/blastfleet/internal/plan/shard"
	"github.com/blastfleet/blastfleet/internal/storage/dbcopy"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

type dbShardOptions struct {
	input         string
	blastdb       string
	dbType        string
	shards        int
	targetLetters int64
	shardIndex    int
	finish        bool
	output        string
	name          string
	force         bool
	workDir       string
	verify        bool
	sourceSHA256  string
	replicas      []string

	// Set from cobra's Changed: 0 is a value the user can give.
	shardsSet, targetSet, indexSet bool
}

func newDBShardCmd(root *cli.Options) *cobra.Command {
	o := &dbShardOptions{}
	cmd := &cobra.Command{
		Use:   "shard --input FILE|s3://bucket/key --type nucl|prot | --blastdb DIR/NAME|s3://bucket/prefix/NAME  --shards N|--target-shard-letters L --output DIR|s3://bucket/prefix",
		Short: "Build a sharded BLAST database from a FASTA file or a prebuilt BLAST database",
		Long: `Build a sharded BLAST database from a FASTA file (plain or gzip), local or
in object storage.

The input is validated completely before anything is written. Sequences are
cut, in their order, into shards of about equal letters (so searches break
ties between subjects as BLAST does on the whole database); each shard is a
BLAST database built by makeblastdb plus an alias file carrying the whole
database's statistics, so searching the shards gives the same E-values as
searching the whole database. Shard files go to the output (a directory or s3://bucket/prefix,
with AWS_* variables for credentials and AWS_ENDPOINT_URL for MinIO), and
manifest.json is written last. Re-running with the same input is a no-op.

The shard count is --shards N, or --target-shard-letters L for
ceil(letters / L) shards (at least 1, at most one per sequence).

For a Kubernetes Indexed Job, split the build: each index runs with
--shards N --shard-index I and builds only shard I (a no-op if it is already
built from this input), then one run with --shards N --finish checks that
every shard is there and writes manifest.json.

A prebuilt BLAST database (--blastdb DIR/NAME or s3://bucket/prefix/NAME:
its volumes as NCBI publishes them, NAME.NN.tar.gz with .md5 files or
unpacked, with or without NAME-<type>-metadata.json, taxdb.tar.gz or
taxdb.btd/bti beside them) is sharded along its volumes: each shard is a run
of whole volumes, copied as they are (ids, titles, taxids, masks and OIDs
stay), under an alias file with the whole database's statistics. An
archive whose MD5 differs from its .md5 file is refused. The taxonomy
database and the version 5 indexes are shipped beside the shards, so the
staxid, ssciname, scomname, sblastname and sskingdom columns and the
-taxids and -negative_taxids options work as on the original. At most one
shard per volume; --type is read from the database. It builds in one run
(no --shard-index/--finish: nothing is rebuilt, only copied).

With --replica (repeatable), once the build is written it is copied to
each replica as "blastfleet db replicate" copies it (checked against the
manifest, resumable), and the replicas are recorded in the manifest.json
of every copy. Replica N (its place among the recorded replicas: for a new
build, the --replica order) reads BLASTFLEET_REPLICA<N>_AWS_* (else AWS_*).

Needs makeblastdb (BLAST+) on PATH, and blastdbcmd for --blastdb.`,
		Example: `  blastfleet db shard --input swissprot.fa.gz --type prot --shards 8 --output s3://dbs/swissprot
  blastfleet db shard --input s3://fasta/nt.fa.gz --type nucl --target-shard-letters 4000000000 --output s3://dbs/nt
  blastfleet db shard --blastdb s3://ncbi-mirror/blast/db/swissprot --shards 1 --output s3://dbs/swissprot
  blastfleet db shard --blastdb /data/blastdb/nt --shards 16 --output s3://dbs/nt
  blastfleet db shard --input nt.fa.gz --type nucl --shards 16 --output s3://dbs/nt --replica s3://dbs-eu/nt

  # one pod per shard, then a finishing pod
  blastfleet db shard --input s3://fasta/nt.fa.gz --type nucl --shards 16 --output s3://dbs/nt --shard-index $JOB_COMPLETION_INDEX
  blastfleet db shard --input s3://fasta/nt.fa.gz --type nucl --shards 16 --output s3://dbs/nt --finish`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			f := cmd.Flags()
			o.shardsSet, o.targetSet, o.indexSet = f.Changed("shards"), f.Changed("target-shard-letters"), f.Changed("shard-index")
			if err := o.validate(); err != nil {
				return err
			}
			return o.run(cmd, root)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.input, "input", "", "FASTA to shard, plain or gzip: a file or s3://bucket/key (this or --blastdb is required)")
	f.StringVar(&o.blastdb, "blastdb", "", "prebuilt BLAST database to shard instead of a FASTA: DIR/NAME or s3://bucket/prefix/NAME (volumes unpacked or NAME.NN.tar.gz with .md5 files)")
	f.StringVar(&o.dbType, "type", "", "sequence type: nucl or prot (required with --input; read from the database with --blastdb)")
	f.IntVar(&o.shards, "shards", 0, "number of shards, at least 1 (this or --target-shard-letters is required)")
	f.Int64Var(&o.targetLetters, "target-shard-letters", 0, "letters per shard to aim for: ceil(letters / L) shards, instead of --shards")
	f.IntVar(&o.shardIndex, "shard-index", 0, "build only this shard, 0-based (needs --shards; for an Indexed Job: $JOB_COMPLETION_INDEX); writes no manifest")
	f.BoolVar(&o.finish, "finish", false, "write manifest.json once every shard was built by --shard-index runs (needs --shards)")
	f.StringVar(&o.output, "output", "", "where to write the database: a directory or s3://bucket/prefix (required)")
	f.StringVar(&o.name, "name", "", "database name (default: the input's base name without .fa/.fasta/.gz)")
	f.BoolVar(&o.force, "force", false, "rebuild even if the output already holds a database (or, with --shard-index, the shard), from this input or another")
	f.BoolVar(&o.verify, "verify", false, "read and validate the whole input and print its sha256 alone on stdout, writing nothing (a pipeline's first step; give the sum to the shard runs' --source-sha256)")
	f.StringVar(&o.sourceSHA256, "source-sha256", "", "fail before writing anything unless the input's sha256 is this (as --verify printed it)")
	f.StringArrayVar(&o.replicas, "replica", nil, "after the build, copy it to this store too and record it as a replica: a directory or s3://bucket/prefix (repeatable)")
	f.StringVar(&o.workDir, "work-dir", "", "directory for temporary build files (default: the system temp directory)")
	_ = cmd.MarkFlagRequired("output") // cannot fail: the flag exists
	return cmd
}

// validate checks flags before anything is opened, with errors that name
// the flag to fix.
func (o *dbShardOptions) validate() error {
	var errs []error
	switch {
	case o.blastdb != "" && o.input != "":
		errs = append(errs, errors.New("--input and --blastdb exclude each other: shard a FASTA or a BLAST database"))
	case o.blastdb != "":
		if o.indexSet || o.finish {
			errs = append(errs, errors.New("--blastdb builds in one run: --shard-index and --finish are for FASTA inputs"))
		}
	case strings.TrimSpace(o.input) == "":
		errs = append(errs, errors.New("--input (a FASTA) or --blastdb (a BLAST database) is required"))
	}
	if (o.blastdb == "" || o.dbType != "") && o.dbType != string(manifest.Nucleotide) && o.dbType != string(manifest.Protein) {
		errs = append(errs, fmt.Errorf("--type must be nucl or prot, not %q", o.dbType))
	}
	switch {
	case o.shardsSet && o.targetSet:
		errs = append(errs, errors.New("--shards and --target-shard-letters exclude each other: give one"))
	case !o.shardsSet && !o.targetSet:
		errs = append(errs, errors.New("one of --shards or --target-shard-letters is required"))
	case o.shardsSet && o.shards < 1:
		errs = append(errs, fmt.Errorf("--shards must be ≥ 1, not %d", o.shards))
	case o.targetSet && o.targetLetters < 1:
		errs = append(errs, fmt.Errorf("--target-shard-letters must be ≥ 1, not %d", o.targetLetters))
	}
	// Index pods and the finishing pod run apart, so they must agree on the
	// shard count before reading: it has to be given, not derived.
	if o.indexSet {
		switch {
		case o.finish:
			errs = append(errs, errors.New("--shard-index and --finish exclude each other: index runs build shards, one --finish run writes the manifest"))
		case !o.shardsSet:
			errs = append(errs, errors.New("--shard-index requires --shards N (the Job's completion count)"))
		case o.shardIndex < 0 || (o.shards >= 1 && o.shardIndex >= o.shards):
			errs = append(errs, fmt.Errorf("--shard-index %d is out of range: want 0 ≤ I < --shards %d", o.shardIndex, o.shards))
		}
	}
	if o.verify && (o.indexSet || o.finish) {
		errs = append(errs, errors.New("--verify writes nothing: it excludes --shard-index and --finish"))
	}
	if v := o.sourceSHA256; v != "" && !isSHA256(v) {
		errs = append(errs, fmt.Errorf("--source-sha256 %q is not a SHA-256 (64 hex digits)", v))
	}
	if o.finish && !o.shardsSet {
		errs = append(errs, errors.New("--finish requires --shards N"))
	}
	if strings.TrimSpace(o.output) == "" {
		errs = append(errs, errors.New("--output must not be empty"))
	}
	if len(o.replicas) > 0 && (o.indexSet || o.verify) {
		errs = append(errs, errors.New("--replica copies a whole build: give it to the run that writes the manifest, not with --shard-index or --verify"))
	}
	return errors.Join(errs...)
}

// run builds the whole database, one shard, or the manifest.
func (o *dbShardOptions) run(cmd *cobra.Command, root *cli.Options) error {
	ctx := cmd.Context()
	out, err := objstore.Open(ctx, o.output)
	if err != nil {
		return fmt.Errorf("--output: %w", err)
	}
	opts := shard.Options{
		Input:              o.input,
		BlastDB:            o.blastdb,
		Type:               manifest.DBType(o.dbType),
		Shards:             o.shards,
		TargetShardLetters: o.targetLetters,
		Output:             out,
		Name:               o.name,
		Force:              o.force,
		WorkDir:            o.workDir,
		Progress:           cmd.ErrOrStderr(),
		Log:                root.Logger(cmd.ErrOrStderr()),
		SourceSHA256:       o.sourceSHA256,
	}
	if cli.IsTerminal(cmd.ErrOrStderr()) {
		bar := &shardBar{w: cmd.ErrOrStderr()}
		defer bar.finish()
		opts.Progress, opts.OnShard = bar, bar.step
	}
	stdout := cmd.OutOrStdout()
	if o.verify {
		v, err := shard.Verify(ctx, opts)
		if err != nil {
			return err
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "%s: %d sequences, %d letters, %d bytes, %d shards; sha256:\n", o.input, v.Sequences, v.Letters, v.Size, v.Shards)
		_, err = fmt.Fprintln(stdout, v.SHA256)
		return err
	}
	if o.indexSet {
		r, err := shard.BuildShard(ctx, opts, o.shardIndex)
		if err != nil {
			return err
		}
		state := "built"
		if !r.Built {
			state = "already built"
		}
		_, err = fmt.Fprintf(stdout, "%s: shard index %d of %d (%s): %d sequences, %d letters, %d files, %s\n",
			r.Database, r.Shard.ID, r.Shards, r.Shard.Name, r.Shard.Sequences, r.Shard.Letters, len(r.Shard.Files), state)
		return err
	}
	build := shard.Build
	if o.blastdb != "" {
		build = shard.BuildFromBlastDB
	}
	if o.finish {
		build = shard.Finish
	}
	m, err := build(ctx, opts)
	if err != nil {
		return err
	}
	if _, err = fmt.Fprintf(stdout, "%s: %d sequences, %d letters, %d shards, manifest %s\n",
		m.Name, m.Sequences, m.Letters, len(m.Shards), out.URL(manifest.FileName)); err != nil || len(o.replicas) == 0 {
		return err
	}
	return o.replicate(cmd, out, m)
}

// replicate copies the build just written (or found) to every --replica.
func (o *dbShardOptions) replicate(cmd *cobra.Command, out objstore.Store, m *manifest.Manifest) error {
	if m.Build == "" {
		return errors.New("--replica: the database's build is not versioned (built before builds/<id>): rebuild it with --force")
	}
	primary, err := location("--output", o.output)
	if err != nil {
		return err
	}
	r := &replication{primary: out, primaryLoc: primary, primaryRole: objstore.RoleOutput, build: m.Build, parallel: dbcopy.DefaultParallel,
		stdout: cmd.OutOrStdout(), progress: cmd.ErrOrStderr()}
	for _, loc := range o.replicas {
		t, err := location("--replica", loc)
		if err != nil {
			return err
		}
		r.targets = append(r.targets, t)
	}
	if err := r.run(cmd.Context()); err != nil {
		return fmt.Errorf("--replica: %w", err)
	}
	return nil
}

func isSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range strings.ToLower(s) {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}
