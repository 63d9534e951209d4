package dbcopy

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/manifest/manifesttest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

func dir(t *testing.T) objstore.Store {
	t.Helper()
	st, err := objstore.NewDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func mustCopy(t *testing.T, src, dst objstore.Store, m *manifest.Manifest) *Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var last Progress
	r, err := Copy(ctx, src, dst, m.Build, Options{Parallel: 2, Progress: func(p Progress) { last = p }})
	if err != nil {
		t.Fatal(err)
	}
	if last != r.Progress || r.Files != r.TotalFiles || r.Bytes != r.TotalBytes {
		t.Errorf("progress %+v, result %+v", last, r.Progress)
	}
	if err := manifest.CheckReplica(ctx, m, dst); err != nil {
		t.Fatalf("the copy does not check out: %v", err)
	}
	return r
}

// A copy checks out; copying again keeps every file; a missing or damaged
// file in the replica is copied again, and the build's manifest keeps its
// bytes (campaigns pin its SHA-256).
func TestCopyAndResume(t *testing.T) {
	ctx := context.Background()
	src, dst := dir(t), dir(t)
	m := manifesttest.Build(t, src)
	if r := mustCopy(t, src, dst, m); r.Kept != 0 || r.TotalFiles != 4 || r.TotalBytes != 100_034 {
		t.Errorf("first copy %+v", r.Progress)
	}
	want, _, _ := src.GetBytes(ctx, m.Key())
	if got, _, err := dst.GetBytes(ctx, m.Key()); err != nil || !bytes.Equal(got, want) {
		t.Errorf("the replica's build manifest differs: %v", err)
	}
	if _, err := dst.Stat(ctx, manifest.FileName); err == nil {
		t.Error("Copy wrote the replica's manifest.json: that is the caller's, once recorded")
	}
	if r := mustCopy(t, src, dst, m); r.Kept != 4 {
		t.Errorf("copy again: kept %d of 4", r.Kept)
	}
	// A partial copy: one file gone, one damaged with its size kept.
	files, _ := m.Files(dst)
	if err := files.Delete(ctx, "shard-000.pal"); err != nil {
		t.Fatal(err)
	}
	bad := bytes.Repeat([]byte("q"), 100_000)
	if err := files.Put(ctx, "shard-000.db.pin", bytes.NewReader(bad), int64(len(bad))); err != nil {
		t.Fatal(err)
	}
	if r := mustCopy(t, src, dst, m); r.Kept != 2 {
		t.Errorf("resume: kept %d, want 2 (the missing and the damaged file copied)", r.Kept)
	}
}

// A source file whose bytes differ from the manifest is refused naming
// it, and leaves no object in the replica.
func TestCopyRefusesDamagedSource(t *testing.T) {
	ctx := context.Background()
	src, dst := dir(t), dir(t)
	m := manifesttest.Build(t, src)
	files, _ := m.Files(src)
	bad := bytes.Repeat([]byte("q"), 100_000)
	if err := files.Put(ctx, "shard-000.db.pin", bytes.NewReader(bad), int64(len(bad))); err != nil {
		t.Fatal(err)
	}
	_, err := Copy(ctx, src, dst, m.Build, Options{})
	if err == nil || !strings.Contains(err.Error(), "copying shard-000.db.pin") || !strings.Contains(err.Error(), "the manifest says "+m.Shards[0].Files[0].SHA256) {
		t.Fatalf("damaged source: %v", err)
	}
	to, _ := m.Files(dst)
	if _, err := to.Stat(ctx, "shard-000.db.pin"); err == nil {
		t.Error("the damaged file was written to the replica")
	}
	if err := manifest.CheckReplica(ctx, m, dst); err == nil {
		t.Error("a failed copy checks out")
	}
	// A short source fails too.
	if err := files.Put(ctx, "shard-000.db.pin", bytes.NewReader(bad[:10]), 10); err != nil {
		t.Fatal(err)
	}
	if _, err := Copy(ctx, src, dst, m.Build, Options{}); err == nil || !strings.Contains(err.Error(), "ends after 10 bytes") {
		t.Errorf("short source: %v", err)
	}
}

// Between MinIO buckets (two stores, one server): a copy, a resume, and
// a damaged source refused with nothing left in the bucket.
func TestCopyMinIO(t *testing.T) {
	m := testenv.StartMinIO(t)
	m.Setenv(t)
	m.MakeBucket(t, "primary")
	m.MakeBucket(t, "replica")
	ctx := context.Background()
	src, err := objstore.Open(ctx, "s3://primary/db")
	if err != nil {
		t.Fatal(err)
	}
	dst, err := objstore.Open(ctx, "s3://replica/db")
	if err != nil {
		t.Fatal(err)
	}
	db := manifesttest.Build(t, src)
	mustCopy(t, src, dst, db)
	to, _ := db.Files(dst)
	if err := to.Delete(ctx, "shard-001.pal"); err != nil {
		t.Fatal(err)
	}
	if r := mustCopy(t, src, dst, db); r.Kept != 3 {
		t.Errorf("resume: kept %d of 4", r.Kept)
	}
	if err := to.Delete(ctx, "shard-000.db.pin"); err != nil {
		t.Fatal(err)
	}
	from, _ := db.Files(src)
	bad := bytes.Repeat([]byte("q"), 100_000)
	if err := from.Put(ctx, "shard-000.db.pin", bytes.NewReader(bad), int64(len(bad))); err != nil {
		t.Fatal(err)
	}
	if _, err := Copy(ctx, src, dst, db.Build, Options{}); err == nil || !strings.Contains(err.Error(), "copying shard-000.db.pin") {
		t.Fatalf("damaged source: %v", err)
	}
	if _, err := to.Stat(ctx, "shard-000.db.pin"); err == nil {
		t.Error("the damaged file was written to the replica bucket")
	}
}

// A file larger than minio-go's smallest part (16 MiB) goes up in parts:
// copied whole when right, and when its source is damaged the upload
// fails with no object left (parts are never completed).
func TestCopyMinIOMultipart(t *testing.T) {
	m := testenv.StartMinIO(t)
	m.Setenv(t)
	m.MakeBucket(t, "primary")
	m.MakeBucket(t, "replica")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	src, _ := objstore.Open(ctx, "s3://primary/db")
	dst, _ := objstore.Open(ctx, "s3://replica/db")
	db := manifesttest.Build(t, src)
	big := bytes.Repeat([]byte("ACGT"), 17<<18) // 17 MiB
	from, _ := db.Files(src)
	if err := from.Put(ctx, "shard-000.db.nsq", bytes.NewReader(big), int64(len(big))); err != nil {
		t.Fatal(err)
	}
	db.Shards[0].Files = append(db.Shards[0].Files, manifest.File{Name: "shard-000.db.nsq", Size: int64(len(big)), SHA256: manifesttest.SHA256(big)})
	if err := manifest.Save(ctx, src, db); err != nil {
		t.Fatal(err)
	}
	mustCopy(t, src, dst, db)

	big[len(big)-1] = 'N' // the last byte: caught only at the very end
	if err := from.Put(ctx, "shard-000.db.nsq", bytes.NewReader(big), int64(len(big))); err != nil {
		t.Fatal(err)
	}
	other, _ := objstore.Open(ctx, "s3://replica/other")
	if _, err := Copy(ctx, src, other, db.Build, Options{}); err == nil || !strings.Contains(err.Error(), "copying shard-000.db.nsq") {
		t.Fatalf("damaged large source: %v", err)
	}
	to, _ := db.Files(other)
	if _, err := to.Stat(ctx, "shard-000.db.nsq"); err == nil {
		t.Error("the damaged large file was written")
	}
}
