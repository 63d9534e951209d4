package planning

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/bio/blastdb/blastdbtest"
	"github.com/blastfleet/blastfleet/internal/plan/shard"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/synth"
)

// TestTaxFilterChecked: planning refuses a taxid filter on a database
// without taxids, and one naming no taxid the database holds, as BLAST+
// would refuse every chunk; it accepts one the database can serve.
func TestTaxFilterChecked(t *testing.T) {
	ctx := context.Background()
	src := taxDB(t)
	build := func(o shard.Options) (string, *manifest.Manifest) {
		loc := t.TempDir()
		st, err := objstore.NewDir(loc)
		if err != nil {
			t.Fatal(err)
		}
		o.Output, o.Shards = st, 2
		var m *manifest.Manifest
		if o.BlastDB != "" {
			m, err = shard.BuildFromBlastDB(ctx, o)
		} else {
			m, err = shard.Build(ctx, o)
		}
		if err != nil {
			t.Fatal(err)
		}
		return loc, m
	}
	taxLoc, taxM := build(shard.Options{BlastDB: filepath.Join(src.Original, src.Name)})
	fa := filepath.Join(t.TempDir(), "plain.fa")
	if err := os.WriteFile(fa, []byte(">a\nACGTACGTTAGCATCGATCGA\n>b\nTTGACCAGTAGCATGCA\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plainLoc, plainM := build(shard.Options{Input: fa, Type: manifest.Nucleotide})
	opt := func(s string) []blast.Option {
		o, err := blast.ParseOption(s)
		if err != nil {
			t.Fatal(err)
		}
		return []blast.Option{o}
	}
	for _, tc := range []struct {
		loc  string
		m    *manifest.Manifest
		opts []blast.Option
		want string
	}{
		{taxLoc, taxM, opt("-taxids=9001,9003"), ""},
		{taxLoc, taxM, opt("-negative_taxids=9002"), ""},
		{taxLoc, taxM, nil, ""},
		{plainLoc, plainM, nil, ""},
		{taxLoc, taxM, opt("-taxids=424242"), "no sequence of the database has taxid 424242"},
		{taxLoc, taxM, opt("-negative_taxids=424242"), "no sequence of the database has only taxids among 424242"},
		{plainLoc, plainM, opt("-taxids=9001"), "need a database with a taxid index: plain was not sharded from a version 5 BLAST database"},
	} {
		err := checkTaxFilter(ctx, tc.loc, tc.m, tc.opts)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s %v: %v, want %q", tc.m.Name, tc.opts, err, tc.want)
		}
	}
}

// taxDB is a small prebuilt BLAST database with taxids (blastdbtest),
// skipping without BLAST+.
func taxDB(t *testing.T) *blastdbtest.DB {
	t.Helper()
	for _, p := range []string{"makeblastdb", "blastdbcmd"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skip("BLAST+ not installed")
		}
	}
	src, err := blastdbtest.Build(t.TempDir(), blastdbtest.Options{Name: "tax", VolumeMax: 700,
		Synth: synth.Options{Seed: 5, Families: 4, Members: 3, MinLen: 400, MaxLen: 600, Mutation: 0.05, Queries: 1, QueryFrac: 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	return src
}
