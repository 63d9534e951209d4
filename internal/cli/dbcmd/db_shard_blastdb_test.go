package dbcmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/bio/blastdb/blastdbtest"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/synth"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// TestDBShardBlastDB shards an NCBI-style packed database from a directory
// and from MinIO (the archives uploaded as NCBI serves them): both give the
// same build, and a corrupt archive in the bucket is refused by name.
func TestDBShardBlastDB(t *testing.T) {
	testenv.RequireTools(t, "makeblastdb", "blastdbcmd")
	ctx := context.Background()
	db, err := blastdbtest.Build(t.TempDir(), blastdbtest.Options{Name: "fictnt", VolumeMax: 2200,
		Synth: synth.Options{Seed: 4, Families: 5, Members: 5, MinLen: 600, MaxLen: 900, Mutation: 0.02, Queries: 2, QueryFrac: 0.3}})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "db")
	stdout, stderr, err := run(t, "blastfleet", "db", "shard", "--blastdb", filepath.Join(db.Packed, db.Name), "--shards", "2", "--output", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.HasPrefix(stdout, "fictnt: ") || !strings.Contains(stdout, "2 shards") || !strings.Contains(stderr, "unpacking fictnt.00.tar.gz") {
		t.Errorf("stdout %q\nstderr %q", stdout, stderr)
	}
	local, err := objstore.NewDir(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := manifest.Load(ctx, local)
	if err != nil {
		t.Fatal(err)
	}

	mi := testenv.StartMinIO(t)
	mi.MakeBucket(t, "ncbi")
	mi.MakeBucket(t, "dbs")
	mi.Setenv(t)
	bucket, err := objstore.Open(ctx, "s3://ncbi/blast/db")
	if err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(db.Packed)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		f, err := os.Open(filepath.Join(db.Packed, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		info, _ := f.Stat()
		err = bucket.Put(ctx, e.Name(), f, info.Size())
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, stderr, err := run(t, "blastfleet", "db", "shard", "--blastdb", "s3://ncbi/blast/db/fictnt", "--shards", "2", "--output", "s3://dbs/fictnt"); err != nil {
		t.Fatalf("from MinIO: %v\n%s", err, stderr)
	}
	s3db, err := objstore.Open(ctx, "s3://dbs/fictnt")
	if err != nil {
		t.Fatal(err)
	}
	got, err := manifest.Load(ctx, s3db)
	if err != nil {
		t.Fatal(err)
	}
	if got.Build != want.Build || got.Source.SHA256 != want.Source.SHA256 || len(got.Shards) != 2 || len(got.Common) != len(want.Common) {
		t.Errorf("from MinIO: build %s (source %s), from the directory: build %s (source %s)", got.Build, got.Source.SHA256, want.Build, want.Source.SHA256)
	}

	// One flipped byte in a volume's archive: refused, named, nothing written.
	data, err := os.ReadFile(filepath.Join(db.Packed, "fictnt.01.tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	data[100] ^= 1
	if err := bucket.Put(ctx, "fictnt.01.tar.gz", strings.NewReader(string(data)), int64(len(data))); err != nil {
		t.Fatal(err)
	}
	_, stderr, err = run(t, "blastfleet", "db", "shard", "--blastdb", "s3://ncbi/blast/db/fictnt", "--shards", "2", "--output", "s3://dbs/corrupt")
	if err == nil || !strings.Contains(err.Error()+stderr, "s3://ncbi/blast/db/fictnt.01.tar.gz is corrupt: MD5") {
		t.Fatalf("corrupt archive: %v\n%s", err, stderr)
	}
	st, _ := objstore.Open(ctx, "s3://dbs/corrupt")
	if objs, _ := st.List(ctx, ""); len(objs) != 0 {
		t.Errorf("%d objects written from a corrupt source", len(objs))
	}
}
