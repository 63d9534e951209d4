package faultproxy

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// putMatch replaces key if it is still at etag.
func putMatch(c *minio.Client, key string, data []byte, etag string) (string, error) {
	var o minio.PutObjectOptions
	o.SetMatchETag(etag)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	info, err := c.PutObject(ctx, bucket, key, strings.NewReader(string(data)), int64(len(data)), o)
	return info.ETag, err
}

// TestLostWrite: a PUT is acknowledged and not stored; a conditional
// one only when its precondition holds, else it gets the refusal the
// server would give, and nothing is lost.
func TestLostWrite(t *testing.T) {
	m := minioWithBucket(t)
	p, c := proxied(t, m, Faults{LostWrite: 1}, 1)
	if err := p.UseCredentials(m.AccessKey, m.SecretKey); err != nil {
		t.Fatal(err)
	}
	if err := put(c, "plain", []byte("gone"), false); err != nil {
		t.Fatalf("a lost write must look stored: %v", err)
	}
	if got := stored(t, m, "plain"); got != nil {
		t.Fatalf("a lost write was stored: %q", got)
	}
	if err := put(c, "created", []byte("gone"), true); err != nil {
		t.Fatalf("a lost create must look stored: %v", err)
	}
	if got := stored(t, m, "created"); got != nil {
		t.Fatalf("a lost create was stored: %q", got)
	}
	// Preconditions are the server's: an existing key refuses a create,
	// a wrong ETag a replacement, a missing key an If-Match.
	direct := m.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	info, err := direct.PutObject(ctx, bucket, "there", strings.NewReader("v1"), 2, minio.PutObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := put(c, "there", []byte("v2"), true); !preconditionFailed(err) {
		t.Fatalf("a create over an existing key: %v, want PreconditionFailed", err)
	}
	if _, err := putMatch(c, "there", []byte("v2"), "0123456789abcdef0123456789abcdef"); !preconditionFailed(err) {
		t.Fatalf("a replacement with a wrong ETag: %v, want PreconditionFailed", err)
	}
	if _, err := putMatch(c, "absent", []byte("v2"), info.ETag); minio.ToErrorResponse(err).Code != "NoSuchKey" {
		t.Fatalf("a replacement of a missing key: %v, want NoSuchKey", err)
	}
	etag, err := putMatch(c, "there", []byte("v2"), info.ETag)
	if err != nil {
		t.Fatalf("a replacement whose precondition holds must look stored: %v", err)
	}
	if got := stored(t, m, "there"); string(got) != "v1" {
		t.Fatalf("stored %q after a lost replacement, want the old %q", got, "v1")
	}
	if sum := md5.Sum([]byte("v2")); strings.Trim(etag, `"`) != hex.EncodeToString(sum[:]) {
		t.Fatalf("the lost replacement's ETag %q: want the MD5 of its body", etag)
	}
	n := p.Counts()
	if n.LostWrites != 3 || strings.Join(n.LostWriteKeys, " ") != "proxied/plain proxied/created proxied/there" {
		t.Fatalf("counts %v, keys %v: want 3 lost writes", n, n.LostWriteKeys)
	}
}

// TestLostWriteNeedsCredentials: without them a conditional PUT passes
// (the proxy could not check its precondition); others are lost.
func TestLostWriteNeedsCredentials(t *testing.T) {
	m, _, c := setup(t, Faults{LostWrite: 1}, 1)
	if err := put(c, "k", []byte("kept"), true); err != nil {
		t.Fatal(err)
	}
	if got := stored(t, m, "k"); string(got) != "kept" {
		t.Fatalf("stored %q: a conditional write was lost without a way to check its precondition", got)
	}
	if err := put(c, "k2", []byte("lost"), false); err != nil || stored(t, m, "k2") != nil {
		t.Fatalf("a plain write: %v, stored %q: want it lost", err, stored(t, m, "k2"))
	}
}

// TestLostPart: a part acknowledged and not stored fails the upload's
// completion (InvalidPart), which is how a client learns of it.
func TestLostPart(t *testing.T) {
	m := minioWithBucket(t)
	parts := func(r *http.Request) bool { return r.URL.Query().Has("partNumber") }
	p, c := proxied(t, m, Faults{LostWrite: 1, Max: 1, Only: parts}, 1)
	core := minio.Core{Client: c}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	id, err := core.NewMultipartUpload(ctx, bucket, "multi", minio.PutObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	part, err := core.PutObjectPart(ctx, bucket, "multi", id, 1, strings.NewReader("only part"), 9, minio.PutObjectPartOptions{})
	if err != nil {
		t.Fatalf("a lost part must look stored: %v", err)
	}
	_, err = core.CompleteMultipartUpload(ctx, bucket, "multi", id, []minio.CompletePart{{PartNumber: 1, ETag: part.ETag}}, minio.PutObjectOptions{})
	if code := minio.ToErrorResponse(err).Code; code != "InvalidPart" {
		t.Fatalf("completing with a lost part: %v (%s), want InvalidPart", err, code)
	}
	if p.Counts().LostWrites != 1 || stored(t, m, "multi") != nil {
		t.Fatalf("counts %v: want the part lost and no object", p.Counts())
	}
}

// TestStaleList: a LIST answered with an earlier answer misses the
// writes made since; past MaxStale the listing is fresh again.
func TestStaleList(t *testing.T) {
	_, p, c := setup(t, Faults{StaleList: 1, MaxStale: 2 * time.Second}, 1)
	list := func() []string {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		var keys []string
		for o := range c.ListObjects(ctx, bucket, minio.ListObjectsOptions{Recursive: true}) {
			if o.Err != nil {
				t.Fatal(o.Err)
			}
			keys = append(keys, o.Key)
		}
		return keys
	}
	if err := put(c, "a", []byte("1"), false); err != nil {
		t.Fatal(err)
	}
	first := list() // nothing kept yet: forwarded, and kept
	if err := put(c, "b", []byte("2"), false); err != nil {
		t.Fatal(err)
	}
	if got := list(); strings.Join(got, " ") != "a" || strings.Join(first, " ") != "a" {
		t.Fatalf("listings %v then %v: want [a] both times (the second stale)", first, got)
	}
	n := p.Counts()
	if n.StaleLists != 1 {
		t.Fatalf("counts %v: want one stale listing", n)
	}
	testenv.Eventually(t, "a fresh listing once the kept one is older than MaxStale", 10*time.Second, 100*time.Millisecond, func() (bool, string) {
		got := list()
		return strings.Join(got, " ") == "a b", strings.Join(got, " ")
	})
}
