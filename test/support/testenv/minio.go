package testenv

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// MinIO is a running MinIO server, stopped when the test ends.
type MinIO struct {
	Endpoint  string // http://127.0.0.1:port (https:// with TLS)
	Host      string // 127.0.0.1:port
	AccessKey string
	SecretKey string
	Dir       string // data directory
	// CertsDir holds public.crt and private.key when the server speaks
	// TLS (StartMinIOTLS), and CA the PEM of the authority that signed it.
	CertsDir, CA string
	// ExtraEnv is more of the server's configuration (StartMinIOEnv).
	ExtraEnv []string
}

var (
	minioOnce sync.Once
	minioBin  string
	minioErr  error
)

// MinIOBinary finds the MinIO server: $BLASTFLEET_MINIO, then
// hack/install-minio.sh, then `minio` on PATH. The search runs once per
// test binary.
func MinIOBinary() (string, error) {
	minioOnce.Do(func() {
		minioBin, minioErr = findBinary("BLASTFLEET_MINIO", "hack/install-minio.sh", "minio")
	})
	return minioBin, minioErr
}

// StartMinIO starts a MinIO server on loopback ports with fresh random
// credentials and an empty data directory, and waits until it is live.
func StartMinIO(t testing.TB) *MinIO {
	t.Helper()
	return StartMinIOEnv(t)
}

// StartMinIOEnv is StartMinIO with more server variables (MINIO_...=...),
// for example an OpenID provider's.
func StartMinIOEnv(t testing.TB, env ...string) *MinIO {
	t.Helper()
	bin, err := MinIOBinary()
	if err != nil {
		skipOrFatal(t, "MinIO not available: %v", err)
	}
	m := &MinIO{AccessKey: "bf" + randomHex(t, 8), SecretKey: randomHex(t, 20), Dir: t.TempDir(), ExtraEnv: env}
	// The free port can be taken between probing and binding; retry then.
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		if lastErr = m.start(t, bin); lastErr == nil {
			return m
		}
	}
	t.Fatalf("starting MinIO: %v", lastErr)
	return nil
}

func (m *MinIO) start(t testing.TB, bin string) error {
	m.Host = fmt.Sprintf("127.0.0.1:%d", freePort(t))
	m.Endpoint = "http://" + m.Host
	return m.startAt(t, bin, "MinIO")
}

// startAt starts the server on m.Host, waits until it is live, and kills
// it when t ends; name labels its output in a failed test's log.
func (m *MinIO) startAt(t testing.TB, bin, name string) error {
	args := []string{"server", "--address", m.Host, "--console-address", fmt.Sprintf("127.0.0.1:%d", freePort(t)), "--quiet"}
	if m.CertsDir != "" {
		args = append(args, "--certs-dir", m.CertsDir)
	}
	cmd := exec.Command(bin, append(args, m.Dir)...)
	cmd.Env = append(os.Environ(),
		"MINIO_ROOT_USER="+m.AccessKey,
		"MINIO_ROOT_PASSWORD="+m.SecretKey,
		"MINIO_UPDATE=off",
		"MINIO_BROWSER=off",
	)
	cmd.Env = append(cmd.Env, m.ExtraEnv...)
	dieWithParent(cmd)
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() {
		cmd.Process.Kill()
		<-exited
	}
	if err := waitLive(m.Endpoint, m.CA, exited, 30*time.Second); err != nil {
		stop()
		return fmt.Errorf("%w; output:\n%s", err, out)
	}
	t.Cleanup(func() {
		stop()
		if t.Failed() {
			t.Logf("%s output:\n%s", name, out)
		}
	})
	return nil
}

// waitLive polls MinIO's liveness endpoint until it answers 200, the
// process exits, or the timeout passes.
func waitLive(endpoint, caFile string, exited <-chan error, timeout time.Duration) error {
	client := &http.Client{Timeout: time.Second}
	if caFile != "" {
		pool := x509.NewCertPool()
		if pem, err := os.ReadFile(caFile); err != nil || !pool.AppendCertsFromPEM(pem) {
			return fmt.Errorf("MinIO's CA %s: %v", caFile, err)
		}
		client.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
	}
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return fmt.Errorf("MinIO exited before becoming live: %v", err)
		default:
		}
		resp, err := client.Get(endpoint + "/minio/health/live")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("MinIO at %s not live after %s", endpoint, timeout)
}

// Env returns the AWS variables that point a client at this server.
func (m *MinIO) Env() []string {
	return []string{
		"AWS_ACCESS_KEY_ID=" + m.AccessKey,
		"AWS_SECRET_ACCESS_KEY=" + m.SecretKey,
		"AWS_REGION=us-east-1",
		"AWS_ENDPOINT_URL=" + m.Endpoint,
	}
}

// Setenv sets Env for the rest of the test (so not in parallel tests).
func (m *MinIO) Setenv(t testing.TB) {
	t.Helper()
	for _, kv := range m.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	t.Setenv("AWS_SESSION_TOKEN", "")
}

// Client returns a minio-go client for this server, for test setup; it
// trusts m.CA when the server speaks TLS.
func (m *MinIO) Client(t testing.TB) *minio.Client {
	t.Helper()
	opts := &minio.Options{
		Creds:        credentials.NewStaticV4(m.AccessKey, m.SecretKey, ""),
		Region:       "us-east-1",
		BucketLookup: minio.BucketLookupPath,
	}
	if m.CA != "" {
		pem, err := os.ReadFile(m.CA)
		if err != nil {
			t.Fatal(err)
		}
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(pem)
		tr, err := minio.DefaultTransport(true)
		if err != nil {
			t.Fatal(err)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
		opts.Secure, opts.Transport = true, tr
	}
	c, err := minio.New(m.Host, opts)
	if err != nil {
		t.Fatalf("MinIO client: %v", err)
	}
	return c
}

// MakeBucket creates a bucket.
func (m *MinIO) MakeBucket(t testing.TB, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := m.Client(t).MakeBucket(ctx, name, minio.MakeBucketOptions{Region: "us-east-1"}); err != nil {
		t.Fatalf("making bucket %s: %v", name, err)
	}
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("finding a free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func randomHex(t testing.TB, n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// syncBuffer collects the server's output from two pipes at once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
