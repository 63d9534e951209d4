package dashboards

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/internal/devstack"
	"github.com/blastfleet/blastfleet/internal/kubescheme"
	"github.com/blastfleet/blastfleet/internal/testenv"
)

// stackLifetime bounds the stack should this test process die without
// stopping it (the supervisor also watches this process).
const stackLifetime = 10 * time.Minute

// stack is the local stack this test started.
type stack struct {
	dir   string
	state *devstack.State
	c     client.Client
}

// upStack starts "blastfleet dev up"'s stack in a temporary directory,
// with PATH for the runner's processes (the slow blastn first), and
// stops it when the test ends.
func upStack(t *testing.T, path string) *stack {
	t.Helper()
	bins := testenv.BuiltBinaries(t)
	cfg := &devstack.Config{
		Dir: t.TempDir(), CLI: bins.CLI, Engine: bins.Engine, Manager: bins.Manager,
		LedgerPollInterval: devstack.Duration(time.Second),
		Env:                []string{"PATH=" + path},
		MaxLifetime:        devstack.Duration(stackLifetime), WatchPID: os.Getpid(),
	}
	if err := devstack.Resolve(cfg, "", nil); err != nil {
		if testenv.RequireReal() {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	t.Cleanup(func() {
		if _, err := devstack.Down(context.Background(), cfg.Dir, false, time.Minute, testLog{t}); err != nil {
			t.Errorf("stopping the local stack: %v", err)
		}
		if t.Failed() {
			for _, c := range []string{"supervisor", "operator", "prometheus"} {
				t.Logf("end of %s.log:\n%s", c, lastLines(filepath.Join(cfg.Dir, "logs", c+".log"), 30))
			}
		}
	})
	st, _, err := devstack.Up(context.Background(), cfg, testLog{t})
	if err != nil {
		t.Fatal(err)
	}
	rc, err := devstack.RESTConfig(st.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(rc, client.Options{Scheme: kubescheme.New()})
	if err != nil {
		t.Fatal(err)
	}
	return &stack{dir: cfg.Dir, state: st, c: c}
}

// testLog sends progress output to the test log.
type testLog struct{ t *testing.T }

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
