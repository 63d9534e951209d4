package dashboards

import (
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/internal/devstack"
	"github.com/blastfleet/blastfleet/test/support/testenv/testkit"
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
	st := testkit.UpStack(t, testkit.StackOptions{
		PATH: path, Lifetime: stackLifetime,
		Logs: []string{"supervisor", "operator", "prometheus"}, LogLines: 30,
	})
	return &stack{dir: st.Dir, state: st, c: testkit.Client(t, st.Kubeconfig)}
}
