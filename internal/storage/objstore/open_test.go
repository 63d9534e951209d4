package objstore

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func fakeCreds(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "id")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	t.Setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:1")
}

func TestOpen(t *testing.T) {
	fakeCreds(t)
	ctx := context.Background()
	for loc, want := range map[string]string{
		"s3://bucket":                     "s3://bucket/k",
		"s3://bucket/":                    "s3://bucket/k",
		"s3://bucket/a/b/":                "s3://bucket/a/b/k",
		"s3://bucket/a/b":                 "s3://bucket/a/b/k",
		filepath.Join(t.TempDir(), "new"): "", // checked below
	} {
		st, err := Open(ctx, loc)
		if err != nil {
			t.Errorf("Open(%q): %v", loc, err)
			continue
		}
		if want == "" {
			want = filepath.Join(loc, "k")
		}
		if got := st.URL("k"); got != want {
			t.Errorf("Open(%q).URL(k) = %s, want %s", loc, got, want)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	fakeCreds(t)
	ctx := context.Background()
	for _, loc := range []string{"", "s3://", "s3:///x", "s3://bucket/a/../b", "s3://x", "gs://bucket/x"} {
		_, err := Open(ctx, loc)
		if err == nil {
			t.Errorf("Open(%q) succeeded", loc)
			continue
		}
		if loc != "" && !strings.Contains(err.Error(), loc) {
			t.Errorf("Open(%q) error does not name the location: %v", loc, err)
		}
	}
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	if _, err := Open(ctx, "s3://bucket"); err == nil || !strings.Contains(err.Error(), "AWS_SECRET_ACCESS_KEY") {
		t.Errorf("Open without a secret = %v, want an error naming AWS_SECRET_ACCESS_KEY", err)
	}
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	t.Setenv("AWS_ENDPOINT_URL", "127.0.0.1:9000")
	if _, err := Open(ctx, "s3://bucket"); err == nil || !strings.Contains(err.Error(), "AWS_ENDPOINT_URL") {
		t.Errorf("Open with a scheme-less endpoint = %v, want an error naming AWS_ENDPOINT_URL", err)
	}
}

func TestOpenObject(t *testing.T) {
	fakeCreds(t)
	ctx := context.Background()
	dir := t.TempDir()
	for loc, want := range map[string][2]string{
		"s3://bkt/a/b/key":              {"s3://bkt/a/b/", "key"},
		"s3://bkt/key":                  {"s3://bkt/", "key"},
		filepath.Join(dir, "out.tsv"):   {dir + "/", "out.tsv"},
		filepath.Join(dir, "x", "y.gz"): {filepath.Join(dir, "x") + "/", "y.gz"},
	} {
		st, key, err := OpenObject(ctx, loc)
		if err != nil {
			t.Errorf("OpenObject(%q): %v", loc, err)
			continue
		}
		if got := st.URL(""); strings.TrimSuffix(got, "/") != strings.TrimSuffix(want[0], "/") || key != want[1] {
			t.Errorf("OpenObject(%q) = %s, %s; want %s, %s", loc, got, key, want[0], want[1])
		}
		if st.URL(key) != loc {
			t.Errorf("OpenObject(%q): URL(key) = %s", loc, st.URL(key))
		}
	}
	for _, loc := range []string{"s3://bkt", "s3://bkt/", "s3://bkt/dir/", "s3://", dir + "/"} {
		if _, _, err := OpenObject(ctx, loc); err == nil {
			t.Errorf("OpenObject(%q) succeeded", loc)
		}
	}
}

// OpenExistingAs refuses a missing directory and creates nothing.
func TestOpenExistingAs(t *testing.T) {
	fakeCreds(t)
	ctx := context.Background()
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing")
	if _, err := OpenExistingAs(ctx, ReplicaRole(1), missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing directory: %v", err)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("the missing directory was created: %v", err)
	}
	for _, loc := range []string{dir, "s3://bucket/db"} {
		if _, err := OpenExistingAs(ctx, ReplicaRole(1), loc); err != nil {
			t.Errorf("%s: %v", loc, err)
		}
	}
}

// An s3:// location is one store with another only on the same endpoint.
func TestSameStore(t *testing.T) {
	clearS3Env(t)
	fakeCreds(t)
	db, r1 := RoleDatabase, ReplicaRole(1)
	if !SameStore(db, "s3://dbs/nt", r1, "s3://dbs/nt/") || SameStore(db, "s3://dbs/nt", r1, "s3://dbs/nt2") || !SameStore(db, "/d", r1, "/d") {
		t.Error("same endpoint")
	}
	t.Setenv("BLASTFLEET_REPLICA1_AWS_ENDPOINT_URL", "http://127.0.0.1:2")
	t.Setenv("BLASTFLEET_REPLICA1_S3_CREDENTIALS", "anonymous")
	if SameStore(db, "s3://dbs/nt", r1, "s3://dbs/nt") {
		t.Error("another endpoint is another store")
	}
}
