package objstore

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"

	"github.com/blastfleet/blastfleet/internal/testenv"
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
