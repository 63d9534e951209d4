package planning

import (
	"context"
	"fmt"

	"github.com/blastfleet/blastfleet/internal/blast"
	"github.com/blastfleet/blastfleet/internal/manifest"
	"github.com/blastfleet/blastfleet/internal/objstore"
	"github.com/blastfleet/blastfleet/internal/taxfilter"
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
	// The database's own store and credentials, as readDatabase.
	st, err := objstore.OpenAs(ctx, objstore.RoleDatabase, loc)
	if err != nil {
		return fmt.Errorf("--database: %w", err)
	}
	files, err := m.Files(st)
	if err != nil {
		return fmt.Errorf("--database: %w", err)
	}
	rc, err := files.Get(ctx, m.TaxStats)
	if err != nil {
		return fmt.Errorf("reading the taxid table %s: %w", files.URL(m.TaxStats), err)
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
