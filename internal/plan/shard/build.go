// Package shard builds a sharded BLAST database: it validates a FASTA,
// balances its sequences into shards by letters, runs makeblastdb per shard,
// writes per-shard alias files carrying the whole database's statistics (so
// E-values equal the unsharded search) and ids files mapping each sequence
// to its original ordinal, uploads everything and writes manifest.json last.
//
// Build does it all in one process. BuildShard and Finish split it for a
// Kubernetes Indexed Job: one process per shard, then one that writes the
// manifest; all three give the same database.
package shard

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/blastfleet/blastfleet/internal/bio/blastvol"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
)

// Build builds the sharded database described by opts and returns its
// manifest. If the output already holds this very database it returns the
// existing manifest without writing anything. On failure no manifest is
// written; shard files already uploaded stay and a re-run overwrites them.
func Build(ctx context.Context, opts Options) (*manifest.Manifest, error) {
	j, old, err := startJob(ctx, opts, "built")
	if j == nil || err != nil {
		return old, err
	}
	if j.o.Force {
		if err := j.useBuild(forcedBuildID(buildID(j.src, &j.o), time.Now())); err != nil {
			return nil, err
		}
	}
	version, err := blastVersion(ctx, j.o.Makeblastdb)
	if err != nil {
		return nil, err
	}
	all := make([]int, j.o.Shards)
	for i := range all {
		all[i] = i
	}
	shards, err := j.buildShards(ctx, version, all)
	if err != nil {
		return nil, err
	}
	m := j.manifest(version, shards)
	if err := manifest.Save(ctx, j.o.Output, m); err != nil {
		return nil, err
	}
	j.retire(ctx, old)
	j.prog.printf("wrote %s (build %s)", j.o.Output.URL(manifest.FileName), j.build)
	return m, nil
}

// buildShards builds the shards in ids in a temporary directory and uploads
// them, each with its done marker, returning them in ids order.
func (j *job) buildShards(ctx context.Context, version string, ids []int) ([]manifest.Shard, error) {
	o := &j.o
	work, err := os.MkdirTemp(o.WorkDir, "blastfleet-shard-")
	if err != nil {
		return nil, fmt.Errorf("creating work directory: %w", err)
	}
	defer func() {
		if err := os.RemoveAll(work); err != nil {
			o.Log.Error(err, "removing work directory", "dir", work)
		}
	}()
	for _, i := range ids {
		if err := os.Mkdir(filepath.Join(work, j.plan.shards[i].names.name), 0o755); err != nil {
			return nil, fmt.Errorf("creating work directory: %w", err)
		}
	}
	if err := split(ctx, o.Input, alphabetFor(o.Type), j.src, j.plan, ids, work); err != nil {
		return nil, err
	}
	// Build every shard before uploading any, so a makeblastdb failure (the
	// likely one: ids it rejects) leaves the output untouched.
	if err := j.buildAll(ctx, work, ids); err != nil {
		return nil, err
	}
	return j.uploadAll(ctx, version, work, ids)
}

// buildAll runs makeblastdb for every shard in ids and writes its alias and
// ids files next to the BLAST DB.
func (j *job) buildAll(ctx context.Context, work string, ids []int) error {
	o, src := &j.o, j.src
	var started atomic.Int32
	return parallel(ctx, len(ids), o.Jobs, func(ctx context.Context, k int) error {
		s := &j.plan.shards[ids[k]]
		// Each shard is built, then uploaded: two steps.
		j.prog.shardStep(2*len(ids), "building shard %d/%d: %s, %d sequences, %d letters",
			started.Add(1), len(ids), s.names.name, len(s.ordinals), s.letters)
		dir := filepath.Join(work, s.names.name)
		run, err := runMakeblastdb(ctx, o.Makeblastdb, dir, filepath.Join(work, s.names.fasta), s.names, o.Type)
		if err != nil {
			return err
		}
		if run.warnings != "" {
			o.Log.Info("makeblastdb warnings", "shard", s.names.name, "stderr", run.warnings)
			j.prog.printf("makeblastdb warnings for %s:\n%s", s.names.name, tail([]byte(run.warnings)))
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

// uploadAll uploads every shard directory in ids and describes it for the
// manifest. A shard's marker is deleted before its files are overwritten
// and written after they are all up, so it never vouches for files that
// another build has replaced or half-replaced.
func (j *job) uploadAll(ctx context.Context, version, work string, ids []int) ([]manifest.Shard, error) {
	o := &j.o
	shards := make([]manifest.Shard, len(ids))
	var uploaded, bytes atomic.Int64
	err := parallel(ctx, len(ids), o.Jobs, func(ctx context.Context, k int) error {
		s := &j.plan.shards[ids[k]]
		if err := deleteMarker(ctx, j.out, s.names.name); err != nil {
			return err
		}
		files, err := uploadDir(ctx, j.out, filepath.Join(work, s.names.name))
		if err != nil {
			return fmt.Errorf("%s: %w", s.names.name, err)
		}
		date, err := volumeDate(filepath.Join(work, s.names.name), s.names.db)
		if err != nil {
			return fmt.Errorf("%s: %w", s.names.name, err)
		}
		shards[k] = manifest.Shard{
			ID:        s.names.id,
			Name:      s.names.name,
			DBName:    s.names.db,
			IDsFile:   s.names.ids,
			Sequences: int64(len(s.ordinals)),
			Letters:   s.letters,
			Files:     files,
			Date:      date,
		}
		if err := writeMarker(ctx, j.out, j.marker(version, shards[k])); err != nil {
			return err
		}
		total := bytes.Add(shards[k].Bytes())
		j.prog.shardStep(2*len(ids), "uploaded shard %d/%d: %s, %d files, %s (%s so far)",
			uploaded.Add(1), len(ids), s.names.name, len(files), byteSize(shards[k].Bytes()), byteSize(total))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return shards, nil
}

// retire deals with the build the new one replaces, once the new manifest
// is saved. A versioned build stays where it is: campaigns planned against
// it pin its manifest and go on reading its files. A database built before
// builds were versioned lies beside manifest.json, which now names the new
// build, so no campaign can use those files any more: they are deleted,
// and failures only logged, since the new database is complete.
func (j *job) retire(ctx context.Context, old *manifest.Manifest) {
	switch {
	case old == nil || old.Build == j.build:
	case old.Build != "":
		j.prog.printf("the previous build %s stays at %s for campaigns planned against it; delete it once none runs",
			old.Build, j.o.Output.URL(old.Build+"/"))
	default:
		var errs []error
		for _, s := range old.Shards {
			keys := []string{markerKey(s.Name)}
			for _, f := range s.Files {
				keys = append(keys, f.Name)
			}
			for _, key := range keys {
				if err := j.o.Output.Delete(ctx, key); err != nil {
					errs = append(errs, err)
				}
			}
		}
		if err := errors.Join(errs...); err != nil {
			j.o.Log.Error(err, "removing files of the previous, unversioned database")
		}
	}
}

// volumeDate is the date makeblastdb wrote in the shard's (first) volume,
// which regenerated reports print as the database's (package regen).
func volumeDate(dir, db string) (string, error) {
	for _, pat := range []string{db + ".[pn]in", db + ".00.[pn]in"} {
		found, _ := filepath.Glob(filepath.Join(dir, pat))
		if len(found) > 0 {
			h, err := blastvol.ReadHeader(found[0])
			if err != nil {
				return "", err
			}
			return h.Date, nil
		}
	}
	return "", fmt.Errorf("no index file of %s in %s", db, dir)
}
