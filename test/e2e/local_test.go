package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/devstack"
	"github.com/blastfleet/blastfleet/internal/testenv"
)

// stack is the local stack this test started.
type stack struct {
	dir string
	cli string
}

// stackLifetime bounds the stack if this test process dies without
// stopping it (the supervisor also watches this process's pid).
const stackLifetime = 15 * time.Minute

func localTarget(t *testing.T, f *fixture) *target {
	t.Helper()
	testenv.RequireTools(t, "prometheus", "mpirun")
	bins := testenv.BuiltBinaries(t)
	cfg := &devstack.Config{
		Dir: t.TempDir(), CLI: bins.CLI, Engine: bins.Engine, Manager: bins.Manager,
		LedgerPollInterval: devstack.Duration(time.Second),
		Env:                []string{"PATH=" + f.slowPath},
		MaxLifetime:        devstack.Duration(stackLifetime), WatchPID: os.Getpid(),
	}
	if err := devstack.Resolve(cfg, "", nil); err != nil {
		if testenv.RequireReal() {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	s := &stack{dir: cfg.Dir, cli: bins.CLI}
	// Registered before Up, so a failed start is cleaned up too; Down is
	// idempotent, so the test's own "dev down" leaves nothing to do.
	t.Cleanup(func() {
		if _, err := devstack.Down(context.Background(), s.dir, false, time.Minute, testLog{t}); err != nil {
			t.Errorf("stopping the local stack: %v", err)
		}
		if t.Failed() {
			for _, c := range []string{"supervisor", "operator"} {
				t.Logf("end of %s.log:\n%s", c, lastLines(filepath.Join(s.dir, "logs", c+".log"), 40))
			}
		}
	})
	t0 := time.Now()
	st, _, err := devstack.Up(context.Background(), cfg, testLog{t})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("local stack up in %s in %s", s.dir, time.Since(t0).Round(time.Millisecond))
	return &target{
		kubeconfig: st.Kubeconfig, ns: "default",
		endpoint: st.MinIO.Endpoint, bucket: st.MinIO.Bucket, secret: devstack.SecretName,
		store: st.Store, cli: bins.CLI, stack: s,
	}
}

// testLog sends progress output to the test log.
type testLog struct{ t *testing.T }

func (w testLog) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
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

// state reads the stack's state file.
func (s *stack) state(t *testing.T) *devstack.State {
	t.Helper()
	st, err := devstack.ReadState(s.dir)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// launcherLogs are the runner's launcher logs of a campaign's
// partitions (every MPIJob, replaced ones too: the files outlive them).
func (s *stack) launcherLogs(t *testing.T, ns, campaign string) map[string]string {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(s.dir, "runner", ns, campaign+"-p*-r*"))
	out := map[string]string{}
	for _, d := range dirs {
		if b, err := os.ReadFile(filepath.Join(d, "launcher.log")); err == nil {
			out[filepath.Base(d)] = string(b)
		}
	}
	return out
}

// waitFor polls cond until it holds or the timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	testenv.Eventually(t, what, timeout, 200*time.Millisecond, cond)
}
