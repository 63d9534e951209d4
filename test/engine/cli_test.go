package engine_e2e

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/blastfleet/blastfleet/test/support/synth"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// snapshotDir describes every file under dir: size, mtime and SHA-256.
func snapshotDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	snap := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		rel, _ := filepath.Rel(dir, p)
		snap[rel] = fmt.Sprintf("%d bytes, mtime %s, sha256 %s", info.Size(), info.ModTime().Format(time.RFC3339Nano), hex.EncodeToString(sum[:]))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// snapshotBucket describes every object under prefix: size, ETag and
// last-modified time.
func snapshotBucket(t *testing.T, m *testenv.MinIO, bucket, prefix string) map[string]string {
	t.Helper()
	snap := map[string]string{}
	for o := range m.Client(t).ListObjects(context.Background(), bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if o.Err != nil {
			t.Fatal(o.Err)
		}
		snap[o.Key] = fmt.Sprintf("%d bytes, etag %s, modified %s", o.Size, o.ETag, o.LastModified.Format(time.RFC3339Nano))
	}
	return snap
}

func sameSnapshot(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	if len(before) == 0 {
		t.Fatalf("%s: nothing was written", what)
	}
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s: %s changed on the second run:\nbefore: %s\n after: %s", what, k, v, after[k])
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			t.Errorf("%s: %s appeared on the second run", what, k)
		}
	}
}

// TestCLIDbShardIdempotent runs `blastfleet db shard` twice with the same
// input: the second run must say so and change nothing.
func TestCLIDbShardIdempotent(t *testing.T) {
	requireTools(t, "makeblastdb")
	b := bins(t)
	dir := t.TempDir()
	input := filepath.Join(dir, "db.fa")
	var db strings.Builder
	if err := synth.Write(synth.Options{Seed: 5, Families: 6, Members: 5, MinLen: 300, MaxLen: 600,
		Mutation: 0.05, Queries: 1, QueryFrac: 0.5, Unrelated: 5}, &db, &strings.Builder{}); err != nil {
		t.Fatal(err)
	}
	writeFile(t, input, []byte(db.String()))
	other := filepath.Join(dir, "other.fa")
	writeFile(t, other, []byte(db.String()+">extra one more\nACGTACGTACGTACGTACGTACGTAAACCCGGGTTT\n"))

	checkNoop := func(t *testing.T, r *result) {
		t.Helper()
		out := r.stdout + r.stderr
		if !strings.Contains(out, "already built") || !strings.Contains(out, "nothing to do") {
			t.Errorf("the second run does not say it is a no-op\n%s", r)
		}
		if strings.Contains(out, "building shard") || strings.Contains(out, "uploaded shard") {
			t.Errorf("the second run built or uploaded shards\n%s", r)
		}
	}

	t.Run("dir", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "db")
		first := shard(t, b.cli, input, 3, out, nil)
		if !strings.Contains(first.stdout, "3 shards") || !strings.Contains(first.stderr, "building shard") {
			t.Errorf("first run:\n%s", first)
		}
		before := snapshotDir(t, out)
		if _, ok := before["manifest.json"]; !ok {
			t.Fatalf("no manifest.json in %s: %v", out, before)
		}
		time.Sleep(20 * time.Millisecond) // a rewrite would show in the mtimes
		second := shard(t, b.cli, input, 3, out, nil)
		checkNoop(t, second)
		sameSnapshot(t, out, before, snapshotDir(t, out))

		// Another input is refused without --force, and changes nothing.
		r := run(t, 60*time.Second, nil, b.cli, "db", "shard", "--input", other, "--type", "nucl",
			"--shards", "3", "--output", out, "--name", "db", "--work-dir", t.TempDir())
		if r.exitCode == 0 || !strings.Contains(r.stderr, "--force") {
			t.Errorf("sharding another input over the database: want an error naming --force\n%s", r)
		}
		sameSnapshot(t, out, before, snapshotDir(t, out))
	})

	t.Run("s3", func(t *testing.T) {
		m := startMinIO(t, "dbs")
		first := shard(t, b.cli, input, 3, "s3://dbs/idem", nil)
		before := snapshotBucket(t, m, "dbs", "idem/")
		if _, ok := before["idem/manifest.json"]; !ok {
			t.Fatalf("no manifest.json under s3://dbs/idem: %v\n%s", before, first)
		}
		time.Sleep(1100 * time.Millisecond) // S3 times may have second resolution
		second := shard(t, b.cli, input, 3, "s3://dbs/idem", nil)
		checkNoop(t, second)
		sameSnapshot(t, "s3://dbs/idem", before, snapshotBucket(t, m, "dbs", "idem/"))
	})
}
