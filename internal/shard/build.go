// Package shard builds a sharded BLAST database: it validates a FASTA,
// balances its sequences into shards by letters, runs makeblastdb per shard,
// writes per-shard alias files carrying the whole database's statistics (so
// E-values equal the unsharded search) and ids files mapping each sequence
// to its original ordinal, uploads everything and writes manifest.json last.
package shard

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/blastfleet/blastfleet/internal/manifest"
)

// Build builds the sharded database described by opts and returns its
// manifest. If the output already holds this very database it returns the
// existing manifest without writing anything. On failure no manifest is
// written; shard files already uploaded stay and a re-run overwrites them.
func Build(ctx context.Context, opts Options) (*manifest.Manifest, error) {
	o := opts
	o.setDefaults()
	if err := o.validate(); err != nil {
		return nil, fmt.Errorf("shard options: %w", err)
	}
	prog := &progress{w: o.Progress}

	// Everything is validated before anything is written.
	prog.printf("reading %s", o.Input)
	src, err := scan(ctx, o.Input, alphabetFor(o.Type))
	if err != nil {
		return nil, err
	}
	prog.printf("read %d sequences, %d letters (%s, sha256 %.12s)", len(src.seqs), src.letters, byteSize(src.size), src.sha256)
	if o.Shards > len(src.seqs) {
		return nil, fmt.Errorf("%d shards for %d sequences: a shard cannot be empty", o.Shards, len(src.seqs))
	}
	old, done, err := existing(ctx, &o, src)
	if err != nil {
		return nil, err
	}
	if done {
		prog.printf("already built: %s matches this input; nothing to do", o.Output.URL(manifest.FileName))
		return old, nil
	}
	version, err := blastVersion(ctx, o.Makeblastdb)
	if err != nil {
		return nil, err
	}

	work, err := os.MkdirTemp(o.WorkDir, "blastfleet-shard-")
	if err != nil {
		return nil, fmt.Errorf("creating work directory: %w", err)
	}
	defer func() {
		if err := os.RemoveAll(work); err != nil {
			o.Log.Error(err, "removing work directory", "dir", work)
		}
	}()

	plan := makePlan(&o, src)
	prog.printf("balanced into %d shards: %d to %d letters each", o.Shards, plan.minLetters(), plan.maxLetters())
	for _, s := range plan.shards {
		if err := os.Mkdir(filepath.Join(work, s.names.name), 0o755); err != nil {
			return nil, fmt.Errorf("creating work directory: %w", err)
		}
	}
	if err := split(ctx, o.Input, alphabetFor(o.Type), src, plan.assign, work, plan.names()); err != nil {
		return nil, err
	}
	// Build every shard before uploading any, so a makeblastdb failure (the
	// likely one: ids it rejects) leaves the output untouched.
	if err := buildAll(ctx, &o, prog, work, plan, src); err != nil {
		return nil, err
	}
	shards, err := uploadAll(ctx, &o, prog, work, plan)
	if err != nil {
		return nil, err
	}

	m := &manifest.Manifest{
		SchemaVersion: manifest.SchemaVersion,
		Name:          o.Name,
		Type:          o.Type,
		BlastVersion:  version,
		Sequences:     int64(len(src.seqs)),
		Letters:       src.letters,
		Source:        manifest.Source{Name: filepath.Base(o.Input), SHA256: src.sha256, Size: src.size},
		Shards:        shards,
	}
	if err := manifest.Save(ctx, o.Output, m); err != nil {
		return nil, err
	}
	removeStale(ctx, &o, old, m)
	prog.printf("wrote %s", o.Output.URL(manifest.FileName))
	return m, nil
}

// buildAll runs makeblastdb for every shard and writes its alias and ids
// files next to the BLAST DB.
func buildAll(ctx context.Context, o *Options, prog *progress, work string, p *plan, src *source) error {
	var started atomic.Int32
	return parallel(ctx, len(p.shards), o.Jobs, func(ctx context.Context, i int) error {
		s := &p.shards[i]
		prog.printf("building shard %d/%d: %s, %d sequences, %d letters",
			started.Add(1), len(p.shards), s.names.name, len(s.ordinals), s.letters)
		dir := filepath.Join(work, s.names.name)
		run, err := runMakeblastdb(ctx, o.Makeblastdb, dir, filepath.Join(work, s.names.fasta), s.names, o.Type)
		if err != nil {
			return err
		}
		if run.warnings != "" {
			o.Log.Info("makeblastdb warnings", "shard", s.names.name, "stderr", run.warnings)
			prog.printf("makeblastdb warnings for %s:\n%s", s.names.name, tail([]byte(run.warnings)))
		}
		if run.added != int64(len(s.ordinals)) {
			return fmt.Errorf("makeblastdb for %s added %d sequences, the shard has %d", s.names.name, run.added, len(s.ordinals))
		}
		if err := writeAlias(dir, s.names, int64(len(src.seqs)), src.letters); err != nil {
			return err
		}
		return writeIDs(dir, s.names, s.ordinals, src.seqs)
	})
}

// uploadAll uploads every shard directory and describes it for the manifest.
func uploadAll(ctx context.Context, o *Options, prog *progress, work string, p *plan) ([]manifest.Shard, error) {
	shards := make([]manifest.Shard, len(p.shards))
	var uploaded, bytes atomic.Int64
	err := parallel(ctx, len(p.shards), o.Jobs, func(ctx context.Context, i int) error {
		s := &p.shards[i]
		files, err := uploadDir(ctx, o.Output, filepath.Join(work, s.names.name))
		if err != nil {
			return fmt.Errorf("%s: %w", s.names.name, err)
		}
		shards[i] = manifest.Shard{
			ID:        s.names.id,
			Name:      s.names.name,
			DBName:    s.names.db,
			IDsFile:   s.names.ids,
			Sequences: int64(len(s.ordinals)),
			Letters:   s.letters,
			Files:     files,
		}
		total := bytes.Add(shards[i].Bytes())
		prog.printf("uploaded shard %d/%d: %s, %d files, %s (%s so far)",
			uploaded.Add(1), len(p.shards), s.names.name, len(files), byteSize(shards[i].Bytes()), byteSize(total))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return shards, nil
}

// removeStale deletes files of the previous database that the new one does
// not have (e.g. after rebuilding with fewer shards). It runs after the new
// manifest is saved and only logs failures: the new database is complete.
func removeStale(ctx context.Context, o *Options, old, m *manifest.Manifest) {
	if old == nil {
		return
	}
	keep := make(map[string]bool)
	for _, s := range m.Shards {
		for _, f := range s.Files {
			keep[f.Name] = true
		}
	}
	var errs []error
	for _, s := range old.Shards {
		for _, f := range s.Files {
			if !keep[f.Name] {
				if err := o.Output.Delete(ctx, f.Name); err != nil {
					errs = append(errs, err)
				}
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		o.Log.Error(err, "removing files of the previous database")
	}
}
