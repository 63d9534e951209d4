package campaign_e2e

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/plan/shard"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
)

// TestDatabaseRebuiltMidCampaign: the database is rebuilt from another
// input (blastfleet db shard --force into the same location) while a
// campaign runs. The rebuild goes to a build folder of its own; the
// partition running is then stopped, and one started after the rebuild
// (with an empty shard cache) finishes the campaign from the build the
// plan pins: the result is the original database's, byte for byte, while
// the database's current build is the new one.
func TestDatabaseRebuiltMidCampaign(t *testing.T) {
	e := newEnv(t)
	loc := "s3://campaigns/" + campaignName(t)
	st := e.plan(t, loc, 2)
	a := startPartition(t, loc, "A", 2, nil)
	a.waitCommitted(t, 2)

	// Half the sequences: a database whose hits differ.
	data, err := os.ReadFile(e.f.fasta)
	if err != nil {
		t.Fatal(err)
	}
	recs := bytes.SplitAfter(data, []byte("\n>"))
	other := filepath.Join(t.TempDir(), "other.fa")
	if err := os.WriteFile(other, bytes.TrimSuffix(bytes.Join(recs[:len(recs)/2], nil), []byte(">")), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dbst := mustOpen(t, e.db)
	rebuilt, err := shard.Build(ctx, shard.Options{Input: other, Type: manifest.Nucleotide, Shards: 2,
		Output: dbst, Name: "families", Force: true, WorkDir: t.TempDir()})
	if err != nil {
		t.Fatalf("rebuilding the database mid-campaign: %v", err)
	}
	if cur, err := manifest.Load(ctx, dbst); err != nil || cur.Build != rebuilt.Build || rebuilt.Build == filepath.Dir(e.f.manifestKey) {
		t.Fatalf("after the rebuild manifest.json names %+v (%v); want the new build %s, not the pinned %s", cur, err, rebuilt.Build, e.f.manifestKey)
	}
	if a.exited() {
		t.Fatalf("partition A finished before the rebuild was done; the campaign is too short to test it")
	}
	_ = a.cmd.Process.Signal(syscall.SIGTERM) // a stop, not a failure
	waitFor(t, 30*time.Second, "partition A to stop", a.exited)
	b := startPartition(t, loc, "B", 2, nil)
	b.mustSucceed(t)
	if len(b.committed()) == 0 {
		t.Errorf("partition B committed nothing after the rebuild:\n%s", b.stderr.String())
	}
	verify(t, st, verifyOpts{want: e.f.want, parts: []*partition{a, b}, needResult: true})
}
