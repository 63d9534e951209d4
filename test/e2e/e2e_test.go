package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// campaignTimeout bounds one campaign; a fault costs a lease plus the
// ledger's 30 s clock-skew allowance before its chunks are taken over.
const campaignTimeout = 3 * time.Minute

// TestEndToEnd: a database and campaigns applied with kubectl, run by the
// operator and (locally) the local runner, compared with blastn of the
// unsharded database; then the faults, the API's refusals and dev down.
func TestEndToEnd(t *testing.T) {
	t.Parallel() // beside TestOneNodeCluster
	testenv.RequireTools(t, "kubectl", "blastn", "makeblastdb")
	t0 := time.Now()
	f := newFixture(t)
	tg := newTarget(t, f)
	db := tg.database(t, f)

	// Faults that hit one partition, and the operator's death, run at
	// once: each waits out a lease, and the operator going away must not
	// disturb any of them.
	t.Run("campaigns", func(t *testing.T) {
		t.Run("clean", func(t *testing.T) { t.Parallel(); testClean(t, tg, f, db) })
		t.Run("report", func(t *testing.T) { t.Parallel(); testReport(t, tg, f, db) })
		t.Run("metadata-transfer", func(t *testing.T) { t.Parallel(); testMetadataTransfer(t, tg, f, db) })
		t.Run("operator-killed", func(t *testing.T) { t.Parallel(); testOperatorKilled(t, tg, f, db) })
		t.Run("launcher-killed", func(t *testing.T) { t.Parallel(); testLauncherKilled(t, tg, f, db) })
		t.Run("worker-rank-killed", func(t *testing.T) { t.Parallel(); testWorkerRankKilled(t, tg, f, db) })
		t.Run("deleted-while-running", func(t *testing.T) { t.Parallel(); testDeletedWhileRunning(t, tg, db) })
		t.Run("stops-not-failures", func(t *testing.T) { t.Parallel(); testStopsNotFailures(t, tg, f, db) })
	})
	// MinIO's restart hits every partition, so it runs alone.
	t.Run("minio-restarted", func(t *testing.T) { testMinIORestarted(t, tg, f, db) })
	t.Run("bad-campaign-rejected", func(t *testing.T) { testBadCampaign(t, tg, db) })
	t.Run("queries-missing", func(t *testing.T) { testQueriesMissing(t, tg, db) })
	t.Run("dev-down-leaves-nothing", func(t *testing.T) { testDown(t, tg, db) })
	t.Logf("end to end: %s", time.Since(t0).Round(time.Second))
}

// testClean: a campaign applied with kubectl completes, nothing is
// redone, and its result (as "blastfleet results" writes it too) equals
// the unsharded search.
func testClean(t *testing.T, tg *target, f *fixture, db string) {
	name := tg.name("e2e-clean")
	tg.cleanupCampaign(t, name)
	t0 := time.Now()
	tg.apply(t, tg.steadyCampaignYAML(name, db, queriesKey))
	c := tg.waitPhase(t, name, v1alpha1.CampaignComplete, campaignTimeout)
	t.Logf("%s Complete %s after kubectl apply", name, time.Since(t0).Round(time.Millisecond))
	tg.verify(t, c, f, expect{maxAttempts: 1})

	out := filepath.Join(t.TempDir(), "result.tsv")
	tg.results(t, name, out)
	got, err := os.ReadFile(out)
	if err != nil || string(got) != string(f.want) {
		t.Errorf("blastfleet results wrote %d bytes (%v), want the reference's %d", len(got), err, len(f.want))
	}
}

// results runs blastfleet results for the campaign into out, reaching
// the object store as this test does.
func (tg *target) results(t *testing.T, name, out string) {
	t.Helper()
	args := []string{"results", name, "-n", tg.ns, "-o", out}
	if tg.stack != nil || tg.node != nil {
		args = append(args, "--from-secret")
	} else if ep := os.Getenv("AWS_ENDPOINT_URL"); ep != "" {
		args = append(args, "--endpoint", ep)
	}
	if stdout, stderr, err := tg.run(t, tg.cli, args...); err != nil {
		t.Fatalf("blastfleet %s: %v\n%s%s", strings.Join(args, " "), err, stdout, stderr)
	}
}
