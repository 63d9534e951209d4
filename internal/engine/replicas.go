package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// NamedStore is a replica of the database that holds its build, checked
// (manifest.CheckReplica): Files is the replica's store of the build's
// files, as openDatabase returns the primary's.
type NamedStore struct {
	Location string
	// Number is the replica's variables: BLASTFLEET_REPLICA<Number>_*.
	Number int
	Files  objstore.Store
}

// replicaCheckTimeout bounds opening and checking one replica: an
// unreachable endpoint must not hold a worker's start for minio-go's
// retries.
const replicaCheckTimeout = 30 * time.Second

// openReplicas opens and checks the database's replicas: the
// --database-replica locations when given (the N-th reads
// BLASTFLEET_REPLICA<N>_*), else the replicas recorded in the database's
// manifest.json, the N-th used only when BLASTFLEET_REPLICA<N>_* is set
// (its endpoint and keys are its own) or it is a directory. A replica
// that lacks or differs from db's build, or cannot be reached, is
// skipped with the reason; none is ever read unchecked.
func openReplicas(ctx context.Context, cfg *Config, db *manifest.Manifest) (ok []NamedStore, skipped []error) {
	type candidate struct {
		loc string
		n   int
	}
	var cands []candidate
	if len(cfg.DatabaseReplicas) > 0 {
		for i, loc := range cfg.DatabaseReplicas {
			cands = append(cands, candidate{loc, i + 1})
		}
	} else {
		recorded, err := recordedReplicas(ctx, cfg, db)
		if err != nil {
			skipped = append(skipped, err)
		}
		for i, loc := range recorded {
			n := i + 1
			if strings.HasPrefix(loc, "s3://") && !objstore.RoleConfigured(objstore.ReplicaRole(n)) {
				skipped = append(skipped, fmt.Errorf("replica %d %s (recorded in the manifest): not used: no %s* variable is set", n, loc, objstore.ReplicaRole(n).EnvPrefix()))
				continue
			}
			cands = append(cands, candidate{loc, n})
		}
	}
	results := make([]NamedStore, len(cands))
	errs := make([]error, len(cands))
	var wg sync.WaitGroup
	for i, c := range cands {
		if sameAsDatabase(cfg.Database, objstore.ReplicaRole(c.n), c.loc) {
			errs[i] = fmt.Errorf("replica %d %s: not used: it is --database itself", c.n, c.loc)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = checkReplica(ctx, db, c.loc, c.n)
		}()
	}
	wg.Wait()
	for i := range cands {
		if errs[i] != nil {
			skipped = append(skipped, errs[i])
		} else {
			ok = append(ok, results[i])
		}
	}
	return ok, skipped
}

// recordedReplicas lists the replicas recorded in the database's
// manifest.json. A campaign's pinned build copy never lists them (adding
// one must not change its bytes), so then manifest.json is read too: a
// replica recorded there for a later build is refused by its check.
func recordedReplicas(ctx context.Context, cfg *Config, db *manifest.Manifest) ([]string, error) {
	if len(db.Replicas) > 0 || cfg.DatabaseManifest == "" || cfg.DatabaseManifest == manifest.FileName {
		return db.ReplicaLocations(), nil
	}
	st, err := objstore.OpenAs(ctx, objstore.RoleDatabase, cfg.Database)
	if err != nil {
		return nil, fmt.Errorf("replicas recorded in the database's manifest: %w", err)
	}
	cur, err := manifest.Load(ctx, st)
	if err != nil {
		return nil, fmt.Errorf("replicas recorded in the database's manifest: %w", err)
	}
	return cur.ReplicaLocations(), nil
}

// sameAsDatabase reports whether a replica is the database's own store.
func sameAsDatabase(database string, role objstore.Role, loc string) bool {
	if !strings.HasPrefix(database, "s3://") {
		database, _ = filepath.Abs(database)
	}
	if !strings.HasPrefix(loc, "s3://") {
		loc, _ = filepath.Abs(loc)
	}
	return objstore.SameStore(objstore.RoleDatabase, database, role, loc)
}

// checkReplica opens replica n at loc with its own variables, without
// creating a missing directory, and checks that it holds db's build.
func checkReplica(ctx context.Context, db *manifest.Manifest, loc string, n int) (NamedStore, error) {
	ctx, cancel := context.WithTimeout(ctx, replicaCheckTimeout)
	defer cancel()
	st, err := objstore.OpenExistingAs(ctx, objstore.ReplicaRole(n), loc)
	if err != nil {
		return NamedStore{}, fmt.Errorf("replica %d %s: %w", n, loc, err)
	}
	if err := manifest.CheckReplica(ctx, db, st); err != nil {
		return NamedStore{}, fmt.Errorf("replica %d: %w", n, err)
	}
	files, err := db.Files(st)
	if err != nil {
		return NamedStore{}, fmt.Errorf("replica %d %s: %w", n, loc, err)
	}
	return NamedStore{Location: loc, Number: n, Files: files}, nil
}

// logReplicas says which replicas a worker accepted and which it refused.
func logReplicas(cfg *Config, ok []NamedStore, skipped []error) {
	for _, r := range ok {
		cfg.Log.Info("database replica accepted", "replica", r.Location, "number", r.Number)
	}
	for _, err := range skipped {
		cfg.Log.Info("database replica refused", "reason", err.Error())
	}
}
