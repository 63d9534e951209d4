package testkit

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/internal/devstack"
	"github.com/blastfleet/blastfleet/internal/operator/kubescheme"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// StackOptions say how a test's local stack runs.
type StackOptions struct {
	// PATH is the runner's processes' PATH (a test's slow blastn first).
	PATH string
	// Lifetime bounds the stack should the test process die without
	// stopping it (the supervisor also watches the test's pid).
	Lifetime time.Duration
	// Logs are the components whose log tails (LogLines lines) a failed
	// test prints.
	Logs     []string
	LogLines int
	// Cluster runs the stack as a real one-node cluster (dev up
	// --cluster): it needs root and the images of make images.
	Cluster bool
	// Argo installs Argo Workflows on the cluster (dev up --argo).
	Argo bool
}

// UpStack starts "blastfleet dev up"'s stack with the built binaries in
// a temporary directory (skipping, or failing with
// BLASTFLEET_REQUIRE_REAL=1, when what it needs is missing), and stops it
// when the test ends.
func UpStack(t *testing.T, o StackOptions) *devstack.State {
	t.Helper()
	bins := testenv.BuiltBinaries(t)
	cfg := &devstack.Config{
		Dir: t.TempDir(), CLI: bins.CLI, Dev: bins.Dev, Engine: bins.Engine, Manager: bins.Manager,
		LedgerPollInterval: devstack.Duration(time.Second),
		Env:                []string{"PATH=" + o.PATH},
		MaxLifetime:        devstack.Duration(o.Lifetime), WatchPID: os.Getpid(),
	}
	if o.Cluster {
		if os.Geteuid() != 0 {
			testenv.SkipOrFail(t, "the one-node cluster needs root (a kubelet, containerd and a bridge)")
		}
		cfg.Cluster = &devstack.ClusterConfig{WithArgo: o.Argo}
		// MinIO's pod (a non-root user) keeps its data under the stack's
		// directory: the test's temporary root must let it through.
		if err := os.Chmod(filepath.Dir(cfg.Dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := devstack.Resolve(cfg, "", nil); err != nil {
		if testenv.RequireReal() {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	// Registered before Up, so a failed start is cleaned up too; Down is
	// idempotent, so a test's own "dev down" leaves nothing to do.
	t.Cleanup(func() {
		if _, err := devstack.Down(context.Background(), cfg.Dir, false, 2*time.Minute, testLog{t}); err != nil {
			t.Errorf("stopping the local stack: %v", err)
		}
		if t.Failed() {
			for _, c := range o.Logs {
				t.Logf("end of %s.log:\n%s", c, lastLines(filepath.Join(cfg.Dir, "logs", c+".log"), o.LogLines))
			}
		}
	})
	t0 := time.Now()
	st, _, err := devstack.Up(context.Background(), cfg, testLog{t})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("local stack up in %s in %s", cfg.Dir, time.Since(t0).Round(time.Millisecond))
	return st
}

// Client is a client of the API server kubeconfig points at, with our
// types and the MPI operator's.
func Client(t testing.TB, kubeconfig string) client.Client {
	t.Helper()
	rc, err := devstack.RESTConfig(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(rc, client.Options{Scheme: kubescheme.New()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// testLog sends progress output to the test log.
type testLog struct{ t testing.TB }

func (w testLog) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func lastLines(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
