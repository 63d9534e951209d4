package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"github.com/blastfleet/blastfleet/internal/storage/dbcopy"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/manifest/manifesttest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// Replicas given as flags, and replicas recorded in manifest.json (one
// in MinIO with its own variables, one without any), are opened and
// checked: only those holding the build are kept, each refusal says why,
// and a missing directory is not created.
func TestOpenReplicas(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, n := range []string{"1", "2", "3"} {
		t.Setenv("BLASTFLEET_REPLICA"+n+"_AWS_ENDPOINT_URL", "")
	}
	root := t.TempDir()
	dir := func(name string) (string, objstore.Store) {
		p := filepath.Join(root, name)
		st, err := objstore.OpenAs(ctx, objstore.ReplicaRole(1), p)
		if err != nil {
			t.Fatal(err)
		}
		return p, st
	}
	dbLoc, primary := dir("db")
	db := manifesttest.Build(t, primary)
	goodLoc, good := dir("good")
	if _, err := dbcopy.Copy(ctx, primary, good, db.Build, dbcopy.Options{}); err != nil {
		t.Fatal(err)
	}
	emptyLoc, _ := dir("empty")
	missing := filepath.Join(root, "missing")
	cfg := &Config{Database: dbLoc, Log: logr.Discard(), DatabaseReplicas: []string{goodLoc, emptyLoc, missing, dbLoc}}

	ok, skipped := openReplicas(ctx, cfg, db)
	if len(ok) != 1 || ok[0].Location != goodLoc || ok[0].Number != 1 {
		t.Fatalf("accepted %+v, want %s alone", ok, goodLoc)
	}
	if _, err := ok[0].Files.Stat(ctx, db.Shards[0].Files[0].Name); err != nil {
		t.Errorf("the accepted replica's files: %v", err)
	}
	wantRefusals(t, skipped, "replica 2: replica refused: replica "+emptyLoc+" lacks build builds/b1",
		"replica 3 "+missing+": storage location", "replica 4 "+dbLoc+": not used: it is --database itself")
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("the missing replica directory was created: %v", err)
	}

	// Recorded in manifest.json; the campaign pins the build's own copy,
	// which lists none.
	m := testenv.StartMinIO(t)
	m.MakeBucket(t, "rep")
	for _, kv := range m.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv("BLASTFLEET_REPLICA2_"+k, v)
	}
	rep, err := objstore.OpenAs(ctx, objstore.ReplicaRole(2), "s3://rep/db")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dbcopy.Copy(ctx, primary, rep, db.Build, dbcopy.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := manifest.AddReplicas(ctx, primary, db.Build, goodLoc, "s3://rep/db", "s3://other/db", emptyLoc); err != nil {
		t.Fatal(err)
	}
	cfg = &Config{Database: dbLoc, DatabaseManifest: db.Key(), Log: logr.Discard()}
	ok, skipped = openReplicas(ctx, cfg, db)
	if len(ok) != 2 || ok[0].Location != goodLoc || ok[1].Location != "s3://rep/db" || ok[1].Number != 2 {
		t.Fatalf("accepted %+v, want %s and s3://rep/db", ok, goodLoc)
	}
	wantRefusals(t, skipped, "replica 3 s3://other/db (recorded in the manifest): not used: no BLASTFLEET_REPLICA3_* variable is set",
		"replica 4: replica refused: replica "+emptyLoc+" lacks build")
}

func wantRefusals(t *testing.T, got []error, want ...string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("refusals %v, want %d", got, len(want))
	}
	for i, w := range want {
		if !strings.Contains(got[i].Error(), w) {
			t.Errorf("refusal %d: %v, want %q", i, got[i], w)
		}
	}
}
