package objstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// clearS3Env empties every variable a store's config reads, so a test
// sees only what it sets.
func clearS3Env(t *testing.T) {
	t.Helper()
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "AWS_") || strings.HasPrefix(k, "BLASTFLEET_") {
			t.Setenv(k, "")
		}
	}
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
}

func putGet(t *testing.T, st Store, key, value string) error {
	t.Helper()
	ctx := context.Background()
	if err := st.Put(ctx, key, strings.NewReader(value), int64(len(value))); err != nil {
		return err
	}
	rc, err := st.Get(ctx, key)
	if err != nil {
		return err
	}
	defer rc.Close()
	got, err := io.ReadAll(rc)
	if err == nil && string(got) != value {
		t.Errorf("read %q back as %q", value, got)
	}
	return err
}

// A pod's web identity (IRSA): no keys anywhere, a service account token
// in AWS_WEB_IDENTITY_TOKEN_FILE exchanged at MinIO's STS
// (AssumeRoleWithWebIdentity) for temporary credentials. MinIO checks the
// token against a real OpenID issuer's keys: a token signed by another
// issuer gets nothing.
func TestS3WebIdentity(t *testing.T) {
	idp := testenv.StartOIDC(t)
	m := idp.StartMinIO(t)
	m.MakeBucket(t, "ident")
	m.WaitSTS(t)
	clearS3Env(t)
	tokenFile := filepath.Join(t.TempDir(), "token")
	t.Setenv("AWS_WEB_IDENTITY_TOKEN_FILE", tokenFile)
	t.Setenv("AWS_ENDPOINT_URL", m.Endpoint)
	t.Setenv("AWS_ENDPOINT_URL_STS", m.Endpoint)

	write := func(tok string) {
		if err := os.WriteFile(tokenFile, []byte(tok), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	open := func() Store {
		st, err := Open(context.Background(), "s3://ident/p")
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	cfg, err := S3ConfigFromEnv()
	if err != nil || cfg.Credentials != CredentialsIdentity || cfg.AccessKey != "" {
		t.Fatalf("a web identity token and no keys: %+v %v", cfg, err)
	}

	write(testenv.StartOIDC(t).Token(t, testenv.OIDCClientID, time.Hour, map[string]any{"policy": "readwrite"}))
	// Refused by MinIO's STS, and said so, not sent on anonymously.
	if err := putGet(t, open(), "k", "v"); !errors.Is(err, ErrNoIdentity) || !strings.Contains(err.Error(), "web identity") {
		t.Fatalf("a token of another issuer: %v", err)
	}
	write(idp.Token(t, testenv.OIDCClientID, time.Hour, map[string]any{"policy": "readwrite"}))
	if err := putGet(t, open(), "k", "web identity"); err != nil {
		t.Fatalf("with the issuer's token: %v", err)
	}
	// Not the root user's keys: MinIO's own record shows the object, and
	// the token alone reached it.
	obj, err := m.Client(t).StatObject(context.Background(), "ident", "p/k", minio.StatObjectOptions{})
	if err != nil || obj.Size != int64(len("web identity")) {
		t.Fatalf("object written by the web identity: %+v %v", obj, err)
	}
}

// A container credentials endpoint (ECS task roles, EKS Pod Identity)
// serving MinIO's temporary credentials with the authorization token the
// agent requires; credentials that expire are fetched again.
func TestS3ContainerCredentialsRefresh(t *testing.T) {
	m := testenv.StartMinIO(t)
	m.MakeBucket(t, "pod")
	// Real temporary credentials (with a session token) from MinIO's STS.
	temp := m.WaitSTS(t)
	var fetches atomic.Int32
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "agent-token" {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		fetches.Add(1)
		// Expires at once after the 80% window: each use refetches.
		json.NewEncoder(w).Encode(map[string]any{
			"AccessKeyId": temp.AccessKeyID, "SecretAccessKey": temp.SecretAccessKey, "Token": temp.SessionToken,
			"Expiration": time.Now().Add(time.Second).UTC().Format(time.RFC3339),
		})
	}))
	defer agent.Close()
	clearS3Env(t)
	t.Setenv("AWS_ENDPOINT_URL", m.Endpoint)
	t.Setenv("AWS_CONTAINER_CREDENTIALS_FULL_URI", agent.URL+"/v2/credentials")
	t.Setenv("AWS_CONTAINER_AUTHORIZATION_TOKEN", "agent-token")
	st, err := Open(context.Background(), "s3://pod")
	if err != nil {
		t.Fatal(err)
	}
	if err := putGet(t, st, "a", "first"); err != nil {
		t.Fatalf("with the agent's credentials: %v", err)
	}
	first := fetches.Load()
	if first < 1 {
		t.Fatal("the credentials endpoint was never asked")
	}
	time.Sleep(1500 * time.Millisecond)
	if err := putGet(t, st, "b", "second"); err != nil {
		t.Fatalf("after the credentials expired: %v", err)
	}
	if fetches.Load() <= first {
		t.Errorf("expired credentials were not fetched again (%d fetches)", fetches.Load())
	}
	t.Setenv("AWS_CONTAINER_AUTHORIZATION_TOKEN", "wrong")
	st, err = Open(context.Background(), "s3://pod")
	if err != nil {
		t.Fatal(err)
	}
	if err := putGet(t, st, "c", "x"); err == nil {
		t.Error("the agent refused the token, yet a write succeeded")
	}
}

// Queries in a public bucket of another endpoint: the queries' own
// variables, anonymous, read without keys; the output keeps its own
// store and keys; writing anonymously is refused.
func TestS3RolesAndAnonymous(t *testing.T) {
	out := testenv.StartMinIO(t)
	pub := testenv.StartMinIO(t)
	out.MakeBucket(t, "out")
	pub.MakeBucket(t, "public")
	ctx := context.Background()
	policy := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":["*"]},"Action":["s3:GetObject"],"Resource":["arn:aws:s3:::public/*"]}]}`
	if err := pub.Client(t).SetBucketPolicy(ctx, "public", policy); err != nil {
		t.Fatal(err)
	}
	if _, err := pub.Client(t).PutObject(ctx, "public", "q.fa", bytes.NewReader([]byte(">q\nACGT\n")), 8, minio.PutObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	clearS3Env(t)
	for _, kv := range out.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	// Without queries variables, queries share the output's store.
	if st, _, err := OpenObjectAs(ctx, RoleQueries, "s3://public/q.fa"); err != nil {
		t.Fatal(err)
	} else if _, err := st.Get(ctx, "q.fa"); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("queries without their own variables: want the output server (no bucket public there), got %v", err)
	}
	t.Setenv("BLASTFLEET_QUERIES_AWS_ENDPOINT_URL", pub.Endpoint)
	t.Setenv("BLASTFLEET_QUERIES_S3_CREDENTIALS", "anonymous")
	st, key, err := OpenObjectAs(ctx, RoleQueries, "s3://public/q.fa")
	if err != nil {
		t.Fatal(err)
	}
	rc, err := st.Get(ctx, key)
	if err != nil {
		t.Fatalf("anonymous read of a public bucket: %v", err)
	}
	b, _ := io.ReadAll(rc)
	rc.Close()
	if string(b) != ">q\nACGT\n" {
		t.Errorf("read %q", b)
	}
	if err := st.Put(ctx, "w", strings.NewReader("x"), 1); err == nil {
		t.Error("an anonymous write to a read-only public bucket succeeded")
	}
	// The output is still the other server with its keys.
	o, err := Open(ctx, "s3://out")
	if err != nil {
		t.Fatal(err)
	}
	if err := putGet(t, o, "ledger", "v"); err != nil {
		t.Fatalf("output store beside anonymous queries: %v", err)
	}
	if _, err := out.Client(t).StatObject(ctx, "out", "ledger", minio.StatObjectOptions{}); err != nil {
		t.Errorf("output not on its server: %v", err)
	}
	// The database's own keys on the public server, while the output
	// keeps its own.
	t.Setenv("BLASTFLEET_DATABASE_AWS_ENDPOINT_URL", pub.Endpoint)
	t.Setenv("BLASTFLEET_DATABASE_AWS_ACCESS_KEY_ID", pub.AccessKey)
	t.Setenv("BLASTFLEET_DATABASE_AWS_SECRET_ACCESS_KEY", pub.SecretKey)
	d, err := OpenAs(ctx, RoleDatabase, "s3://public/db")
	if err != nil {
		t.Fatal(err)
	}
	if err := putGet(t, d, "manifest.json", "{}"); err != nil {
		t.Fatalf("database store with its own keys: %v", err)
	}
	t.Setenv("BLASTFLEET_DATABASE_AWS_SECRET_ACCESS_KEY", "")
	if _, err := OpenAs(ctx, RoleDatabase, "s3://public/db"); err == nil || !strings.Contains(err.Error(), "BLASTFLEET_DATABASE_AWS_SECRET_ACCESS_KEY") {
		t.Errorf("half the database's keys: %v", err)
	}
}
