package shard

import (
	"context"
	"errors"
	"fmt"

	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// ShardResult is what BuildShard did.
type ShardResult struct {
	Database string         // the database's name
	Shards   int            // the database's shard count
	Shard    manifest.Shard // the shard, as Finish puts it into the manifest
	Built    bool           // false: it was already complete and nothing was written
}

// BuildShard builds and uploads only shard index (0-based) of the database
// opts describes: one pod of a Kubernetes Indexed Job. It reads and
// validates the whole input as Build does, so every index derives the same
// balance, then builds its own shard and writes its done marker last. It is
// idempotent, as a retried Job index must be: a shard already complete from
// this input and shard count is left alone (Force rebuilds it). It never
// writes manifest.json; Finish does once every index is done.
func BuildShard(ctx context.Context, opts Options, index int) (*ShardResult, error) {
	if opts.TargetShardLetters != 0 {
		return nil, errors.New("shard options: building one shard needs a fixed shard count, not a target of letters per shard")
	}
	j, err := newJob(opts)
	if err != nil {
		return nil, err
	}
	if index < 0 || index >= j.o.Shards {
		return nil, fmt.Errorf("shard index %d: must be at least 0 and less than the shard count %d", index, j.o.Shards)
	}
	if err := j.read(ctx); err != nil {
		return nil, err
	}
	name := j.plan.shards[index].names.name
	res := &ShardResult{Database: j.o.Name, Shards: j.o.Shards}
	s, done, err := j.shardDone(ctx, index)
	if err != nil {
		return nil, err
	}
	if done {
		j.prog.printf("shard index %d (%s) is already built from this input; nothing to do", index, name)
		res.Shard = s
		return res, nil
	}
	j.prog.printf("shard index %d: building %s of %d shards", index, name, j.o.Shards)
	version, err := blastVersion(ctx, j.o.Makeblastdb)
	if err != nil {
		return nil, err
	}
	shards, err := j.buildShards(ctx, version, []int{index})
	if err != nil {
		return nil, err
	}
	res.Shard, res.Built = shards[0], true
	return res, nil
}

// shardDone reports whether shard i of this build is complete at the
// output: listed by a manifest of this very database, or vouched for by
// its marker, with its files present. Like Build it refuses an output whose
// manifest comes from another input, unless Force.
func (j *job) shardDone(ctx context.Context, i int) (manifest.Shard, bool, error) {
	old, done, err := existing(ctx, &j.o, j.src)
	if err != nil {
		return manifest.Shard{}, false, err
	}
	if done {
		return old.Shards[i], true, nil
	}
	if j.o.Force {
		return manifest.Shard{}, false, nil
	}
	name := j.plan.shards[i].names.name
	m, err := readMarker(ctx, j.out, name)
	if errors.Is(err, objstore.ErrNotExist) {
		return manifest.Shard{}, false, nil
	}
	if err != nil {
		// A marker is only a shortcut: rebuilding replaces a bad one.
		j.o.Log.Info("ignoring unreadable done marker, rebuilding", "shard", name, "error", err.Error())
		return manifest.Shard{}, false, nil
	}
	if problem := j.markerProblem(m, i); problem != "" {
		j.prog.printf("%s is at the output but %s: rebuilding it", name, problem)
		return manifest.Shard{}, false, nil
	}
	absent, err := absentFiles(ctx, j.out, m.Shard.Files)
	if err != nil {
		return manifest.Shard{}, false, err
	}
	if len(absent) > 0 {
		j.prog.printf("%s is incomplete at the output (%s missing): rebuilding it", name, absent[0])
		return manifest.Shard{}, false, nil
	}
	return m.Shard, true, nil
}
