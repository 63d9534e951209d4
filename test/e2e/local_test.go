package e2e

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/devstack"
	"github.com/blastfleet/blastfleet/test/support/testenv"
	"github.com/blastfleet/blastfleet/test/support/testenv/testkit"
)

// stack is the local stack this test started.
type stack struct {
	dir string
	cli string
}

// stackLifetime bounds the stack if this test process dies without
// stopping it (the supervisor also watches this process's pid); it
// must outlast the one-node cluster's test, Argo's subtests included.
const stackLifetime = 20 * time.Minute

func localTarget(t *testing.T, f *fixture) *target {
	t.Helper()
	testenv.RequireTools(t, "prometheus", "mpirun")
	st := testkit.UpStack(t, testkit.StackOptions{
		PATH: f.slowPath, Lifetime: stackLifetime,
		Logs: []string{"supervisor", "operator"}, LogLines: 40,
	})
	cli := testenv.BuiltBinaries(t).CLI
	return &target{
		kubeconfig: st.Kubeconfig, ns: "default",
		endpoint: st.MinIO.Endpoint, bucket: st.MinIO.Bucket, secret: devstack.SecretName,
		store: st.Store, cli: cli, stack: &stack{dir: st.Dir, cli: cli},
	}
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
