package shard

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// statJobs bounds concurrent marker reads and stats: network round trips,
// not CPU work.
const statJobs = 16

// Finish writes manifest.json for a database whose shards were built by
// separate BuildShard runs. It reads and validates the input (to prove the
// shards were built from it and to derive the same plan), checks every
// shard's marker and files, and writes the manifest Build would have
// written for the same input. If any shard is missing or belongs to
// another build it writes nothing and names their indexes. A database
// already finished is a no-op.
func Finish(ctx context.Context, opts Options) (*manifest.Manifest, error) {
	if opts.TargetShardLetters != 0 {
		return nil, errors.New("shard options: finishing needs a fixed shard count, not a target of letters per shard")
	}
	j, old, err := startJob(ctx, opts, "finished")
	if j == nil || err != nil {
		return old, err
	}
	markers, err := j.collect(ctx)
	if err != nil {
		return nil, err
	}
	version, err := sameVersion(markers)
	if err != nil {
		return nil, err
	}
	shards := make([]manifest.Shard, len(markers))
	for i, mk := range markers {
		shards[i] = mk.Shard
	}
	m := j.manifest(version, shards)
	if err := manifest.Save(ctx, j.o.Output, m); err != nil {
		return nil, err
	}
	j.retire(ctx, old)
	j.prog.printf("all %d shards present; wrote %s (build %s)", len(shards), j.o.Output.URL(manifest.FileName), j.build)
	return m, nil
}

// shardState is what Finish found for one shard index.
type shardState struct {
	marker  *doneMarker
	missing bool   // no marker: the index has not finished
	problem string // the marker or files do not belong to this build
}

// collect reads every shard's marker and checks it and its files, and
// returns the markers in shard order, or an error naming every shard index
// that is not complete.
func (j *job) collect(ctx context.Context) ([]*doneMarker, error) {
	states := make([]shardState, j.o.Shards)
	err := parallel(ctx, j.o.Shards, statJobs, func(ctx context.Context, i int) error {
		st := &states[i]
		m, err := readMarker(ctx, j.out, j.plan.shards[i].names.name)
		switch {
		case errors.Is(err, objstore.ErrNotExist):
			st.missing = true
			return nil
		case err != nil:
			st.problem = err.Error()
			return nil
		}
		if st.problem = j.markerProblem(m, i); st.problem != "" {
			return nil
		}
		absent, err := absentFiles(ctx, j.out, m.Shard.Files)
		if err != nil {
			return err
		}
		if len(absent) > 0 {
			st.problem = "files missing at the output: " + strings.Join(absent, ", ")
			return nil
		}
		st.marker = m
		return nil
	})
	if err != nil {
		return nil, err
	}
	var missing []string
	var problems []string
	markers := make([]*doneMarker, len(states))
	for i, st := range states {
		switch {
		case st.missing:
			missing = append(missing, strconv.Itoa(i))
		case st.problem != "":
			problems = append(problems, fmt.Sprintf("shard index %d (%s): %s", i, j.plan.shards[i].names.name, st.problem))
		default:
			markers[i] = st.marker
		}
	}
	if len(missing) == 0 && len(problems) == 0 {
		return markers, nil
	}
	var why []string
	if len(missing) > 0 {
		why = append(why, fmt.Sprintf("shard indexes not built yet: %s", strings.Join(missing, ", ")))
	}
	why = append(why, problems...)
	return nil, fmt.Errorf("cannot write %s: %d of %d shards are not complete from this input; %s (run --shard-index again for each: it builds a shard that is missing or belongs to another build)",
		j.o.Output.URL(manifest.FileName), len(missing)+len(problems), j.o.Shards, strings.Join(why, "; "))
}

// sameVersion is the makeblastdb version all shards were built with; the
// manifest records one, so shards from different versions are refused.
func sameVersion(markers []*doneMarker) (string, error) {
	byVersion := make(map[string][]string)
	for i, m := range markers {
		byVersion[m.BlastVersion] = append(byVersion[m.BlastVersion], strconv.Itoa(i))
	}
	if len(byVersion) == 1 {
		return markers[0].BlastVersion, nil
	}
	var parts []string
	for v, idx := range byVersion {
		parts = append(parts, fmt.Sprintf("%s for shard indexes %s", v, strings.Join(idx, ", ")))
	}
	slices.Sort(parts)
	return "", fmt.Errorf("shards were built by different makeblastdb versions (%s): rebuild some with --shard-index I --force so that all match",
		strings.Join(parts, "; "))
}
