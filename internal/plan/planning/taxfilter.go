package planning

import (
	"context"
	"fmt"
	"io"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/bio/taxfilter"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// checkTaxFilter refuses, before any partition starts, a taxid filter the
// database cannot serve: it has no taxid table, or the filter keeps
// (-taxids) or drops (-negative_taxids) none of its sequences, which
// BLAST+ would refuse on every chunk.
func checkTaxFilter(ctx context.Context, loc string, m *manifest.Manifest, opts []blast.Option) error {
	f, err := taxfilter.FromOptions(opts)
	if err != nil || f == nil {
		return err
	}
	if m.TaxStats == "" {
		return taxfilter.NoIndexError(m.Name)
	}
	rc, err := openCommon(ctx, loc, m, m.TaxStats, "the taxid table")
	if err != nil {
		return err
	}
	defer rc.Close()
	table, err := taxfilter.Read(rc)
	if err != nil {
		return err
	}
	if _, _, err := table.Totals(f); err != nil {
		return fmt.Errorf("database %s: %w", m.Name, err)
	}
	return nil
}

// openCommon opens one of the database's common files, in its own store
// with its credentials, as readDatabase.
func openCommon(ctx context.Context, loc string, m *manifest.Manifest, name, what string) (io.ReadCloser, error) {
	st, err := objstore.OpenAs(ctx, objstore.RoleDatabase, loc)
	if err != nil {
		return nil, fmt.Errorf("--database: %w", err)
	}
	files, err := m.Files(st)
	if err != nil {
		return nil, fmt.Errorf("--database: %w", err)
	}
	rc, err := files.Get(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("reading %s %s: %w", what, files.URL(name), err)
	}
	return rc, nil
}
