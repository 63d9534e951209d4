package engine_e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/refsearch"
	"github.com/blastfleet/blastfleet/test/support/synth"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// startMinIO starts a MinIO server, points the AWS_* variables of this test
// (and of every process it starts) at it, and makes the buckets.
func startMinIO(t *testing.T, buckets ...string) *testenv.MinIO {
	t.Helper()
	m := testenv.StartMinIO(t)
	m.Setenv(t)
	for _, b := range buckets {
		m.MakeBucket(t, b)
	}
	return m
}

// putObject uploads data to an s3:// location through the project's store.
func putObject(t *testing.T, location string, data []byte) {
	t.Helper()
	ctx := context.Background()
	st, key, err := objstore.OpenObject(ctx, location)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Put(ctx, key, bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatalf("uploading %s: %v", location, err)
	}
}

// getObject downloads an s3:// object through the project's store.
func getObject(t *testing.T, location string) []byte {
	t.Helper()
	ctx := context.Background()
	st, key, err := objstore.OpenObject(ctx, location)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := st.Get(ctx, key)
	if err != nil {
		t.Fatalf("downloading %s: %v", location, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("downloading %s: %v", location, err)
	}
	return b
}

// partsOf returns how many parts a completed object was uploaded in: S3
// (and MinIO) give a multipart object the ETag "<md5 of md5s>-<parts>".
func partsOf(t *testing.T, m *testenv.MinIO, bucket, key string) int {
	t.Helper()
	info, err := m.Client(t).StatObject(context.Background(), bucket, key, minio.StatObjectOptions{})
	if err != nil {
		t.Fatalf("stat s3://%s/%s: %v", bucket, key, err)
	}
	etag := strings.Trim(info.ETag, `"`)
	_, n, ok := strings.Cut(etag, "-")
	if !ok {
		return 1 // a plain put
	}
	parts, err := strconv.Atoi(n)
	if err != nil {
		t.Fatalf("s3://%s/%s: ETag %q", bucket, key, info.ETag)
	}
	return parts
}

// noObjects fails the test if the bucket holds any object under prefix,
// or an unfinished multipart upload of key (MinIO lists uploads only by
// their exact key, not by prefix).
func noObjects(t *testing.T, m *testenv.MinIO, bucket, prefix, key string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := m.Client(t)
	for o := range c.ListObjects(ctx, bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if o.Err != nil {
			t.Fatalf("listing s3://%s/%s: %v", bucket, prefix, o.Err)
		}
		t.Errorf("s3://%s/%s exists after a failed run", bucket, o.Key)
	}
	for u := range c.ListIncompleteUploads(ctx, bucket, key, true) {
		if u.Err != nil {
			t.Fatalf("listing uploads of s3://%s/%s: %v", bucket, key, u.Err)
		}
		t.Errorf("multipart upload %s of s3://%s/%s left unfinished after a failed run", u.UploadID, bucket, u.Key)
	}
}

// TestS3DatabaseAndOutput shards into MinIO with the CLI and runs the
// engine binary in-process and under mpirun with the database, the queries
// and the output all in object storage.
func TestS3DatabaseAndOutput(t *testing.T) {
	requireTools(t, "mpirun", "blastn", "makeblastdb")
	b := bins(t)
	f := newFixture(t, nuclFamilies())
	const outfmt = "6 std"
	want := f.reference(t, outfmt)
	m := startMinIO(t, "dbs", "input", "out")
	shard(t, b.cli, f.fasta, 3, "s3://dbs/testdb", nil)
	q := readFile(t, f.queries)
	putObject(t, "s3://input/q.fa", q)
	putObject(t, "s3://input/q.fa.gz", gzipBytes(t, q))

	cases := []struct {
		name    string
		launch  []string
		queries string
		extra   []string
	}{
		{"in-process/gzip", nil, "s3://input/q.fa.gz", []string{"--workers", "2"}},
		{"in-process/plain", nil, "s3://input/q.fa", []string{"--workers", "2", "--group-bytes", "1"}},
		{"mpirun-np3/plain", mpirun(3), "s3://input/q.fa", nil},
		{"mpirun-np3/gzip", mpirun(3), "s3://input/q.fa.gz", []string{"--group-bytes", "1"}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := fmt.Sprintf("s3://out/run%d/result.tsv", i)
			argv := append(append([]string(nil), c.launch...), b.engine, "--database", "s3://dbs/testdb",
				"--queries", c.queries, "--program", "blastn", "--outfmt", outfmt, "--output", out,
				"--cache-dir", filepath.Join(t.TempDir(), "cache"))
			argv = append(argv, c.extra...)
			r := mustRun(t, mpiTimeout, mpiEnv, argv...)
			t.Logf("%s: %s", c.name, r.elapsed.Round(time.Millisecond))
			if d := refsearch.Diff(getObject(t, out), want); d != "" {
				t.Fatalf("%s differs from the unsharded search: %s\n%s", out, d, r)
			}
		})
	}

	// No hits: S3 refuses a multipart upload of no parts, so the engine
	// must store an empty object instead.
	t.Run("no hits", func(t *testing.T) {
		putObject(t, "s3://input/nohit.fa", []byte(">nohit poly-T\n"+strings.Repeat("T", 60)+"\n"))
		r := mustRun(t, mpiTimeout, mpiEnv, b.engine, "--database", "s3://dbs/testdb", "--queries", "s3://input/nohit.fa",
			"--program", "blastn", "--outfmt", outfmt, "--output", "s3://out/nohit.tsv",
			"--cache-dir", filepath.Join(t.TempDir(), "cache"), "--workers", "2")
		if got := getObject(t, "s3://out/nohit.tsv"); len(got) != 0 {
			t.Fatalf("a search without hits stored %d bytes: %q\n%s", len(got), got, r)
		}
	})

	// An output of several S3 parts: every part but the last must be at
	// least 5 MiB, so the writers group blocks; alignment columns make
	// long lines and the result over 10 MiB on a small search.
	t.Run("multipart", func(t *testing.T) {
		o := synth.Options{Seed: 11, Families: 3, Members: 60, MinLen: 1500, MaxLen: 2000, Mutation: 0.01,
			Queries: 60, QueryFrac: 0.9}
		big := newFixture(t, o)
		const bigFmt = "6 std qseq sseq"
		want := big.reference(t, bigFmt)
		if len(want) < 10<<20 {
			t.Fatalf("the reference is %d bytes; the multipart case needs over 10 MiB", len(want))
		}
		shard(t, b.cli, big.fasta, 3, "s3://dbs/big", nil)
		putObject(t, "s3://input/big.fa", readFile(t, big.queries))
		for _, c := range []struct {
			name   string
			launch []string
			extra  []string
		}{
			{"in-process", nil, []string{"--workers", "2", "--group-bytes", "1"}},
			{"mpirun-np4", mpirun(4), []string{"--group-bytes", "1"}},
		} {
			t.Run(c.name, func(t *testing.T) {
				key := "big-" + c.name + ".tsv"
				argv := append(append([]string(nil), c.launch...), b.engine, "--database", "s3://dbs/big",
					"--queries", "s3://input/big.fa", "--program", "blastn", "--outfmt", bigFmt,
					"--output", "s3://out/"+key, "--cache-dir", filepath.Join(t.TempDir(), "cache"))
				argv = append(argv, c.extra...)
				r := mustRun(t, mpiTimeout, mpiEnv, argv...)
				got := getObject(t, "s3://out/"+key)
				parts := partsOf(t, m, "out", key)
				t.Logf("%s: %d bytes in %d parts, %s", c.name, len(got), parts, r.elapsed.Round(time.Millisecond))
				if d := refsearch.Diff(got, want); d != "" {
					t.Fatalf("multipart output differs from the unsharded search: %s\n%s", d, r)
				}
				if parts < 2 || parts > (len(got)+(5<<20)-1)/(5<<20) {
					t.Errorf("%d bytes uploaded in %d part(s); want 2 or more, none but the last under 5 MiB", len(got), parts)
				}
			})
		}
	})
}
