package cli

import (
	"os"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/test/support/testenv/testkit"
)

// TestReadmeSamplesLocalStack runs the kubectl commands of README's "The
// local stack" block, as written and from the repository root, on a
// stack brought up as blastfleet dev up brings it: config/samples must
// apply unchanged, the sample database build and the sample campaign
// complete, with the bytes blastp prints for the sample queries on the
// unsharded sample database (test/e2e TestOneNodeCluster runs the same
// on the one-node cluster).
func TestReadmeSamplesLocalStack(t *testing.T) {
	st := testkit.UpStack(t, testkit.StackOptions{PATH: os.Getenv("PATH"), Lifetime: 15 * time.Minute,
		Logs: []string{"operator", "supervisor"}, LogLines: 40})
	times := testkit.ReadmeSamples(t, st, 5*time.Minute)
	t.Logf("local stack: sample database Ready %s, sample campaign Complete %s after kubectl apply",
		times.Ready.Round(time.Second), times.Complete.Round(time.Second))
}
