package objstore

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"

	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// A private endpoint with its own CA: trusted through AWS_CA_BUNDLE, and
// refused without it (certificates are checked, not skipped).
func TestS3CABundle(t *testing.T) {
	m := testenv.StartMinIOTLS(t)
	for _, kv := range m.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_CA_BUNDLE", m.CA)
	cfg, err := S3ConfigFromEnv()
	if err != nil || !cfg.Secure || cfg.CABundle != m.CA {
		t.Fatalf("config %+v, %v", cfg, err)
	}
	st, err := NewS3(cfg, "tls", "")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := st.core.Client.MakeBucket(ctx, "tls", minio.MakeBucketOptions{}); err != nil {
		t.Fatalf("over TLS with the bundle: %v", err)
	}
	if err := st.Put(ctx, "k", bytes.NewReader([]byte("v")), 1); err != nil {
		t.Fatalf("over TLS with the bundle: %v", err)
	}

	cfg.CABundle = ""
	plain, err := NewS3(cfg, "tls", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plain.Stat(ctx, "k"); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("without the bundle: %v, want a certificate error", err)
	}

	for _, bad := range []string{filepath.Join(t.TempDir(), "none.pem"), writeFile(t, "not a certificate")} {
		cfg.CABundle = bad
		if _, err := NewS3(cfg, "tls", ""); err == nil || !strings.Contains(err.Error(), "AWS_CA_BUNDLE") {
			t.Errorf("bundle %s: %v, want an error naming AWS_CA_BUNDLE", bad, err)
		}
	}
}

func writeFile(t *testing.T, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Clients of the same settings share one transport, so an operator that
// opens a campaign's store at every reconcile reuses its connections; a
// bundle rewritten in place (a mounted ConfigMap) gets a new one.
func TestS3SharesTransports(t *testing.T) {
	m := testenv.StartMinIOTLS(t)
	ca, err := os.ReadFile(m.CA)
	if err != nil {
		t.Fatal(err)
	}
	bundle := writeFile(t, string(ca))
	cfg := S3Config{Endpoint: "127.0.0.1:1", Secure: true, Region: "us-east-1", CABundle: bundle}
	transport := func(cfg S3Config) any {
		t.Helper()
		s, err := NewS3(cfg, "bucket", "")
		if err != nil {
			t.Fatal(err)
		}
		return s.transport
	}
	first := transport(cfg)
	if transport(cfg) != first {
		t.Error("two clients of the same settings have two transports")
	}
	plain := cfg
	plain.CABundle = ""
	if transport(plain) == first {
		t.Error("a client without the bundle shares the bundle's transport")
	}
	insecure := plain
	insecure.Secure = false
	if transport(insecure) == transport(plain) {
		t.Error("http and https clients share a transport")
	}
	if err := os.WriteFile(bundle, append(ca, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	if transport(cfg) == first {
		t.Error("a rewritten bundle kept the old transport")
	}
}
