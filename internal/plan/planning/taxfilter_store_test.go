package planning

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/plan/shard"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// A taxid filter is checked against the database's taxid table in the
// database's own store, with its own credentials
// (BLASTFLEET_DATABASE_*), not the output's: a database on another
// server than the campaign was refused before.
func TestTaxFilterDatabaseStore(t *testing.T) {
	src := taxDB(t)
	ctx := context.Background()
	out, dbs := testenv.StartMinIO(t), testenv.StartMinIO(t)
	out.MakeBucket(t, "out")
	dbs.MakeBucket(t, "dbs")
	st, err := objstore.NewS3(objstore.S3Config{Endpoint: dbs.Host, PathStyle: true, Region: "us-east-1",
		AccessKey: dbs.AccessKey, SecretKey: dbs.SecretKey}, "dbs", "tax")
	if err != nil {
		t.Fatal(err)
	}
	m, err := shard.BuildFromBlastDB(ctx, shard.Options{BlastDB: filepath.Join(src.Original, src.Name), Output: st, Shards: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range out.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("BLASTFLEET_DATABASE_AWS_ENDPOINT_URL", dbs.Endpoint)
	t.Setenv("BLASTFLEET_DATABASE_AWS_ACCESS_KEY_ID", dbs.AccessKey)
	t.Setenv("BLASTFLEET_DATABASE_AWS_SECRET_ACCESS_KEY", dbs.SecretKey)
	o, err := blast.ParseOption("-taxids=9001")
	if err != nil {
		t.Fatal(err)
	}
	if err := checkTaxFilter(ctx, "s3://dbs/tax", m, []blast.Option{o}); err != nil {
		t.Errorf("taxid filter on a database in its own store: %v", err)
	}
}
