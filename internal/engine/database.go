package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/blastfleet/blastfleet/internal/bio/seqidfilter"
	"github.com/blastfleet/blastfleet/internal/bio/taxfilter"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// openDatabase reads the database's manifest, the one the campaign's plan
// pins when there is a plan, and returns it with the store of its build's
// files. Every rank does this before any chunk is leased, so a database
// changed since planning costs no attempt (manifest.ErrChanged).
func openDatabase(ctx context.Context, cfg *Config) (*manifest.Manifest, objstore.Store, error) {
	dbStore, err := objstore.OpenAs(ctx, objstore.RoleDatabase, cfg.Database)
	if err != nil {
		return nil, nil, fmt.Errorf("--database: %w", err)
	}
	key := cfg.DatabaseManifest
	if key == "" {
		key = manifest.FileName
	}
	db, _, err := manifest.LoadPinned(ctx, dbStore, key, cfg.DatabaseSHA256)
	if err != nil {
		if errors.Is(err, objstore.ErrNotExist) && absentHere(ctx, dbStore) {
			return nil, nil, fmt.Errorf("--database: %s holds no database as this partition sees it (neither %s nor %s): its endpoint, bucket or credentials may differ from the other sites', so the campaign is not marked changed for all of them: %w",
				dbStore.URL(""), key, manifest.FileName, objstore.ErrNotExist)
		}
		return nil, nil, fmt.Errorf("--database: %w", err)
	}
	// A taxid filter needs the database's taxid index: refused before any
	// chunk is leased, not by every task.
	if f, err := taxfilter.FromOptions(cfg.Options); err != nil {
		return nil, nil, err
	} else if f != nil && db.TaxStats == "" {
		return nil, nil, taxfilter.NoIndexError(db.Name)
	}
	if l := cfg.SeqidList; l != nil && db.SeqStats == "" {
		return nil, nil, seqidfilter.NoTableError(l.Option(), db.Name)
	}
	files, err := db.Files(dbStore)
	if err != nil {
		return nil, nil, fmt.Errorf("--database: %w", err)
	}
	return db, files, nil
}

// cacheName is a build's folder in the shard cache: builds of one source
// hold files of the same names with other contents.
func cacheName(db *manifest.Manifest) string {
	if db.Build != "" {
		return fmt.Sprintf("%s-%s", db.Name, db.Build[len(manifest.BuildsDir)+1:])
	}
	return fmt.Sprintf("%s-%.12s", db.Name, db.Source.SHA256)
}

// refuseDatabase records, for the operator, that the campaign's database
// changed under it: no partition can search it again, so the campaign
// fails with the reason instead of its partitions restarting forever.
func (m *master) refuseDatabase(ctx context.Context, err error) error {
	if m.cfg.Campaign == nil || !errors.Is(err, manifest.ErrChanged) {
		return err
	}
	reason := ledger.FailureReason{Message: err.Error(), Database: true}
	if merr := m.cfg.Campaign.Ledger.MarkInvalid(ctx, m.cfg.Campaign.Holder, reason); merr != nil {
		return errors.Join(err, merr)
	}
	return err
}

// absentHere says whether the database's current manifest.json is missing
// too: then the whole database is absent as this partition sees the
// store, which is more likely its own view (another endpoint, bucket or
// account than the other sites') than a database deleted for everyone.
// A pinned build gone while manifest.json stays is a change everyone sees.
func absentHere(ctx context.Context, st objstore.Store) bool {
	_, _, err := st.GetBytes(ctx, manifest.FileName)
	return errors.Is(err, objstore.ErrNotExist)
}
