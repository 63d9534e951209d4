package engine_test

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/engine"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// A rank refuses a manifest other than the one the plan pins before any
// chunk is leased: no attempt is used, and the campaign is marked so the
// operator fails it with the reason instead of restarting partitions.
func TestCampaignRefusesChangedDatabase(t *testing.T) {
	f := synthFixture(t, nuclFamilies())
	s := search{program: blast.Blastn, outfmt: "6 std", workers: 1}
	db := filepath.Join(t.TempDir(), "db")
	f.shardTo(t, 2, db)
	ctx := context.Background()
	dbStore, err := objstore.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	m, sum, err := manifest.LoadCurrent(ctx, dbStore)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		change func(t *testing.T)
	}{
		{"edited", func(t *testing.T) {
			data, _, err := dbStore.GetBytes(ctx, m.Key())
			if err != nil {
				t.Fatal(err)
			}
			data = bytes.Replace(data, []byte("  "), []byte("   "), 1) // same manifest, other bytes
			if err := dbStore.Put(ctx, m.Key(), bytes.NewReader(data), int64(len(data))); err != nil {
				t.Fatal(err)
			}
		}},
		{"deleted", func(t *testing.T) {
			if err := dbStore.Delete(ctx, m.Key()); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loc, st := planCampaign(t, f, db, s, 10, 30)
			tc.change(t)
			l, err := ledger.Open(ctx, st, ledger.Options{})
			if err != nil {
				t.Fatal(err)
			}
			cfg := s.config(t, db, l.Plan().Queries.Location, loc)
			cfg.DatabaseManifest, cfg.DatabaseSHA256 = m.Key(), sum
			cfg.Campaign = &engine.Campaign{Location: loc, Ledger: l, Holder: "p0"}
			_, err = engine.RunLocal(ctx, cfg, s.workers)
			if !errors.Is(err, manifest.ErrChanged) {
				t.Fatalf("partition on a changed database: %v, want ErrChanged", err)
			}
			status, err := ledger.ReadStatus(ctx, st)
			if err != nil {
				t.Fatal(err)
			}
			if status.Invalid == nil || !status.Invalid.Database || status.Attempts != 0 || status.Leased != 0 {
				t.Errorf("status %+v: want the database marked changed, no attempt and no lease", status)
			}
		})
	}

	// One site whose store holds no database at all (another endpoint or
	// bucket than the others'): its partition fails, and the campaign is
	// not marked, so the sites that see the database carry on (issue 30,
	// finding 10).
	t.Run("absent at one site", func(t *testing.T) {
		loc, st := planCampaign(t, f, db, s, 10, 30)
		l, err := ledger.Open(ctx, st, ledger.Options{})
		if err != nil {
			t.Fatal(err)
		}
		elsewhere := filepath.Join(t.TempDir(), "no-db-here")
		cfg := s.config(t, elsewhere, l.Plan().Queries.Location, loc)
		cfg.DatabaseManifest, cfg.DatabaseSHA256 = m.Key(), sum
		cfg.Campaign = &engine.Campaign{Location: loc, Ledger: l, Holder: "p0"}
		_, err = engine.RunLocal(ctx, cfg, s.workers)
		if err == nil || errors.Is(err, manifest.ErrChanged) || !errors.Is(err, objstore.ErrNotExist) || !strings.Contains(err.Error(), "as this partition sees it") {
			t.Fatalf("partition whose store holds no database: %v, want a not-found error of its own, not ErrChanged", err)
		}
		status, err := ledger.ReadStatus(ctx, st)
		if err != nil {
			t.Fatal(err)
		}
		if status.Invalid != nil {
			t.Errorf("one site's missing database marked the campaign for every site: %+v", status.Invalid)
		}
	})
}
