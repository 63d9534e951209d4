package shard

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// job is one invocation's options, validated input and balanced plan.
// Build, BuildShard and Finish all derive their shards through it, so
// separate processes reading the same input agree on every shard.
type job struct {
	o    Options
	prog *progress
	src  *source
	plan *plan
	// build is this build's folder (builds/<id>) and out the output's
	// part under it, where shard files and markers go.
	build string
	out   objstore.Store
}

// newJob validates the options; nothing is read yet.
func newJob(opts Options) (*job, error) {
	o := opts
	o.setDefaults()
	if err := o.validate(); err != nil {
		return nil, fmt.Errorf("shard options: %w", err)
	}
	return &job{o: o, prog: &progress{w: o.Progress, onShard: o.OnShard}}, nil
}

// read scans and validates the whole input, fixes the shard count and
// balances the sequences into shards. Nothing is written.
func (j *job) read(ctx context.Context) error {
	j.prog.printf("reading %s", j.o.Input)
	src, err := scan(ctx, j.o.Input, alphabetFor(j.o.Type))
	if err != nil {
		return err
	}
	j.prog.printf("read %d sequences, %d letters (%s, sha256 %.12s)", len(src.seqs), src.letters, byteSize(src.size), src.sha256)
	if want := j.o.SourceSHA256; want != "" && !strings.EqualFold(want, src.sha256) {
		return fmt.Errorf("input %s has sha256 %s, not %s as it had when verified: it changed during the build", j.o.Input, src.sha256, want)
	}
	n, err := shardCount(&j.o, src)
	if err != nil {
		return err
	}
	if j.o.TargetShardLetters > 0 {
		j.prog.printf("%d shards for a target of %d letters per shard", n, j.o.TargetShardLetters)
	}
	j.o.Shards = n
	j.src = src
	j.plan = makePlan(&j.o, src)
	if err := j.useBuild(buildID(src, &j.o)); err != nil {
		return err
	}
	j.prog.printf("balanced into %d shards: %d to %d letters each", n, j.plan.minLetters(), j.plan.maxLetters())
	return nil
}

// source describes the input for the manifest and the markers.
func (j *job) source() manifest.Source {
	return manifest.Source{Name: filepath.Base(j.o.Input), SHA256: j.src.sha256, Size: j.src.size}
}

// manifest is the database's manifest.json for its built shards.
func (j *job) manifest(version string, shards []manifest.Shard) *manifest.Manifest {
	return &manifest.Manifest{
		SchemaVersion: manifest.SchemaVersion,
		Name:          j.o.Name,
		Type:          j.o.Type,
		BlastVersion:  version,
		Sequences:     int64(len(j.src.seqs)),
		Letters:       j.src.letters,
		Source:        j.source(),
		Shards:        shards,
		Ordered:       true, // balance keeps the database's order
		Build:         j.build,
	}
}

// marker is the done marker of one built shard.
func (j *job) marker(version string, s manifest.Shard) *doneMarker {
	return &doneMarker{
		SchemaVersion: markerVersion,
		Database:      j.o.Name,
		Type:          j.o.Type,
		Shards:        j.o.Shards,
		Source:        j.source(),
		Sequences:     int64(len(j.src.seqs)),
		Letters:       j.src.letters,
		BlastVersion:  version,
		Shard:         s,
	}
}

// startJob validates the options and reads and validates the input, all
// before anything is written, and returns the output's manifest if it has
// one. When that manifest is this very database's it says so (it was
// already done) and returns no job.
func startJob(ctx context.Context, opts Options, done string) (*job, *manifest.Manifest, error) {
	j, err := newJob(opts)
	if err != nil {
		return nil, nil, err
	}
	if err := j.read(ctx); err != nil {
		return nil, nil, err
	}
	old, exists, err := existing(ctx, &j.o, j.src)
	if err != nil {
		return nil, nil, err
	}
	if exists {
		j.prog.printf("already %s: %s matches this input; nothing to do", done, j.o.Output.URL(manifest.FileName))
		return nil, old, nil
	}
	return j, old, nil
}
