package e2e

import (
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/devstack"
	"github.com/blastfleet/blastfleet/test/support/testenv/testkit"
)

// testReadmeSamples runs README's sample lines (kubectl apply -k
// config/samples/ as written, from the repository root) on the one-node
// cluster: the samples name no endpoint and read inputs dev up --cluster
// uploaded, so this is what a user sees after dev up --cluster. The
// sample database gets Ready and the campaign Complete with blastp's
// bytes on the unsharded sample database; what was applied is deleted
// afterwards, so the other subtests and dev down see the cluster as it
// was.
func testReadmeSamples(t *testing.T, st *devstack.State) {
	times := testkit.ReadmeSamples(t, st, campaignTimeout)
	t.Logf("one-node cluster: sample database Ready %s, sample campaign Complete %s after kubectl apply",
		times.Ready.Round(time.Second), times.Complete.Round(time.Second))
}
