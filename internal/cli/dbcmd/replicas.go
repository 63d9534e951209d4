package dbcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dustin/go-humanize"

	"github.com/blastfleet/blastfleet/internal/storage/dbcopy"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// location is a store's location as manifests record it: s3:// as
// written (without a trailing slash), a directory made absolute, so the
// engine on another machine reads the same path and two spellings of one
// place compare equal.
func location(flag, loc string) (string, error) {
	loc = strings.TrimSpace(loc)
	switch {
	case loc == "":
		return "", fmt.Errorf("%s must not be empty", flag)
	case strings.HasPrefix(loc, "s3://"):
		return strings.TrimRight(loc, "/"), nil
	}
	abs, err := filepath.Abs(loc)
	if err != nil {
		return "", fmt.Errorf("%s %q: %w", flag, loc, err)
	}
	return abs, nil
}

// replication copies one build of the database at primary to replicas
// and records them in the primary's manifest.json.
type replication struct {
	primary    objstore.Store
	primaryLoc string
	// primaryRole is whose variables reach the primary: a replica at the
	// same s3:// location on another endpoint is another store.
	primaryRole objstore.Role
	build       string   // builds/<id>
	targets     []string // replica locations, as location() gives them
	parallel    int
	stdout      io.Writer
	progress    io.Writer
}

func (r *replication) run(ctx context.Context) error {
	for i, t := range r.targets {
		if slices.Contains(r.targets[:i], t) {
			return fmt.Errorf("replica %s is given twice", t)
		}
		if t == r.primaryLoc && !strings.HasPrefix(t, "s3://") {
			return fmt.Errorf("replica %s is the database's own location", t)
		}
	}
	cur, err := manifest.Load(ctx, r.primary)
	if err != nil {
		return err
	}
	current := cur.Build == r.build
	known := []string{}
	if current {
		known = cur.ReplicaLocations()
	}
	// A replica's variables are numbered by its place in manifest.json's
	// list, where AddReplicas will append new ones in this order.
	for _, t := range r.targets {
		if !slices.Contains(known, t) {
			known = append(known, t)
		}
	}
	stores := make([]objstore.Store, len(r.targets))
	for i, t := range r.targets {
		role := objstore.ReplicaRole(slices.Index(known, t) + 1)
		if objstore.SameStore(r.primaryRole, r.primaryLoc, role, t) {
			return fmt.Errorf("replica %s is the database's own location (same endpoint: set %s* for another)", t, role.EnvPrefix())
		}
		if stores[i], err = objstore.OpenAs(ctx, role, t); err != nil {
			return fmt.Errorf("replica %s: %w", t, err)
		}
		if strings.HasPrefix(t, "s3://") {
			fmt.Fprintf(r.progress, "replica %s: storage variables %s* (else the unprefixed AWS_*)\n", t, role.EnvPrefix())
		}
		show := newCopyProgress(r.progress, "copying "+r.build+" to "+t)
		res, err := dbcopy.Copy(ctx, r.primary, stores[i], r.build, dbcopy.Options{Parallel: r.parallel, Progress: show.update})
		show.done()
		if err != nil {
			return fmt.Errorf("replica %s: %w", t, err)
		}
		fmt.Fprintf(r.stdout, "%s: build %s copied to %s: %d files (%d already there, intact), %s\n",
			res.Manifest.Name, r.build, t, res.Files, res.Kept, humanize.IBytes(uint64(res.TotalBytes)))
	}
	if !current {
		fmt.Fprintf(r.progress, "not recorded in %s: build %s is not the database's current build (%s); give the replica to the engine with --database-replica\n",
			r.primary.URL(manifest.FileName), r.build, cur.Build)
		return nil
	}
	data, err := manifest.AddReplicas(ctx, r.primary, r.build, r.targets...)
	if errors.Is(err, manifest.ErrOtherBuild) {
		fmt.Fprintf(r.progress, "not recorded: %v (rebuilt while copying)\n", err)
		return nil
	}
	if err != nil {
		return err
	}
	// Each copy's manifest.json lists the replicas too, written after
	// its build's manifest: a replica read as a database says the same.
	for i, st := range stores {
		if err := st.Put(ctx, manifest.FileName, bytes.NewReader(data), int64(len(data))); err != nil {
			return fmt.Errorf("replica %s: %w", r.targets[i], err)
		}
	}
	fmt.Fprintf(r.stdout, "recorded %d replicas in %s\n", len(r.targets), r.primary.URL(manifest.FileName))
	return nil
}
