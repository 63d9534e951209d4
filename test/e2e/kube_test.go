package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
)

// Keys of the inputs in the bucket.
const (
	dbKey      = "e2e/families.fa"
	queriesKey = "e2e/queries.fa"
)

// storage is the spec.storage / spec.output block every object uses.
func (tg *target) storage(prefix string) string {
	return fmt.Sprintf(`    endpoint: %s
    bucket: %s
    prefix: %s
    credentialsSecretRef:
      name: %s`, tg.endpoint, tg.bucket, prefix, tg.secret)
}

// databaseYAML is the test's BlastDatabase: 3 shards, built by Jobs
// (spec.builder job, also where Argo Workflows is installed).
func (tg *target) databaseYAML(name string) string {
	return tg.databaseYAMLBuilder(name, "job")
}

func (tg *target) databaseYAMLBuilder(name, builder string) string {
	return fmt.Sprintf(`apiVersion: blastfleet.io/v1alpha1
kind: BlastDatabase
metadata:
  name: %s
spec:
  source:
    key: %s
  type: nucl
  builder: %s
  shards:
    count: 3
  storage:
%s
`, name, dbKey, builder, tg.storage("e2e-databases"))
}

// campaignYAML is a campaign of the fixture's 30 queries in chunks of 2
// (15 chunks: each query searched alone, since in BLAST+'s batches the
// fixture is one batch and so one chunk, and these tests want faults to
// land mid-run and chunks to share) by 2 partitions of 2 worker ranks and the master, whose
// worker pods ask for a hundredth of a core (the one-node cluster runs
// several tests' partitions at once on 2 cores) and the default memory
// (about 770Mi: the small database, BLAST's 512Mi and the master's 256Mi;
// less would cut the database into groups of a shard), with
// the shortest lease the API allows (10 s) and immediate replacement of
// failed partitions, so faults cost seconds.
func (tg *target) campaignYAML(name, db, queries string) string {
	return fmt.Sprintf(`apiVersion: blastfleet.io/v1alpha1
kind: SearchCampaign
metadata:
  name: %s
spec:
  databaseRef:
    name: %s
  queries:
    key: %s
  program: blastn
  outfmt: %q
  maxTargetSeqs: 500
  chunking:
    queries: 2
  batching: alone
  partitions:
    count: 2
    workers: 2
    slotsPerWorker: 1
    resources:
      requests:
        cpu: 10m
  retryPolicy:
    maxAttempts: 3
    leaseSeconds: 10
    clockSkewSeconds: 2
    maxPartitionRestarts: 5
    backoffSeconds: 0
    maxBackoffSeconds: 1
  output:
%s
`, name, db, queries, outfmt, tg.storage("e2e-campaigns"))
}

// steadyCampaignYAML is campaignYAML for runs that expect nothing redone
// (no fault, or one the partitions never see): a 30 s lease. make test
// runs several suites beside the one-node cluster (load average 13 on 2
// cores seen), and a 10 s lease's renewals through the in-cluster MinIO
// then lapsed once: a retry that is correct, but not what these tests check.
func (tg *target) steadyCampaignYAML(name, db, queries string) string {
	y := tg.campaignYAML(name, db, queries)
	return strings.Replace(y, "leaseSeconds: 10\n", "leaseSeconds: 30\n", 1)
}

func (tg *target) campaign(t *testing.T, name string) *v1alpha1.SearchCampaign {
	t.Helper()
	var c v1alpha1.SearchCampaign
	if err := tg.c.Get(context.Background(), client.ObjectKey{Namespace: tg.ns, Name: name}, &c); err != nil {
		t.Fatal(err)
	}
	return &c
}

// waitPhase waits for the campaign's phase; a campaign that fails while
// the test waits for another phase fails the test at once.
func (tg *target) waitPhase(t *testing.T, name string, phase v1alpha1.CampaignPhase, timeout time.Duration) *v1alpha1.SearchCampaign {
	t.Helper()
	return tg.waitPhaseOr(t, name, phase, phase, timeout)
}

// waitPhaseOr waits for either phase.
func (tg *target) waitPhaseOr(t *testing.T, name string, phase, or v1alpha1.CampaignPhase, timeout time.Duration) *v1alpha1.SearchCampaign {
	t.Helper()
	var c *v1alpha1.SearchCampaign
	deadline := time.Now().Add(timeout)
	for {
		c = tg.campaign(t, name)
		if c.Status.Phase == phase || c.Status.Phase == or {
			return c
		}
		if c.Status.Phase == v1alpha1.CampaignFailed {
			t.Fatalf("campaign %s Failed while waiting for %s: %s", name, phase, conditions(c))
		}
		if time.Now().After(deadline) {
			t.Fatalf("campaign %s not %s after %s: phase %s, %s", name, phase, timeout, c.Status.Phase, conditions(c))
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func conditions(c *v1alpha1.SearchCampaign) string {
	s := ""
	for _, cd := range c.Status.Conditions {
		s += fmt.Sprintf("[%s=%s %s: %s] ", cd.Type, cd.Status, cd.Reason, cd.Message)
	}
	return s
}

// database applies the test's BlastDatabase and waits until it is Ready.
func (tg *target) database(t *testing.T, f *fixture) string {
	t.Helper()
	name := tg.name("e2e-families")
	tg.put(t, dbKey, f.db)
	tg.put(t, queriesKey, f.queries)
	t0 := time.Now()
	tg.apply(t, tg.databaseYAML(name))
	var db v1alpha1.BlastDatabase
	waitFor(t, 3*time.Minute, "BlastDatabase "+name+" Ready", func() (bool, string) {
		if err := tg.c.Get(context.Background(), client.ObjectKey{Namespace: tg.ns, Name: name}, &db); err != nil {
			return false, err.Error()
		}
		if db.Status.Phase == v1alpha1.DatabaseFailed {
			t.Fatalf("BlastDatabase %s Failed: %+v", name, db.Status.Conditions)
		}
		return db.Status.Phase == v1alpha1.DatabaseReady, fmt.Sprintf("%s %d/%d shards", db.Status.Phase, db.Status.ShardsBuilt, db.Status.Shards)
	})
	t.Logf("BlastDatabase %s Ready in %s: %d sequences in %d shards", name, time.Since(t0).Round(time.Millisecond), db.Status.Sequences, db.Status.Shards)
	if tg.stack == nil {
		t.Cleanup(func() { _, _, _ = tg.run(t, "kubectl", "-n", tg.ns, "delete", "bdb", name, "--wait=false") })
	}
	return name
}

// cleanupCampaign deletes a campaign on a shared cluster when the test
// ends (the local stack goes away whole).
func (tg *target) cleanupCampaign(t *testing.T, name string) {
	if tg.stack == nil {
		t.Cleanup(func() { _, _, _ = tg.run(t, "kubectl", "-n", tg.ns, "delete", "bsc", name, "--wait=false") })
	}
}

// failedCondition is the campaign's Failed condition, or nil.
func failedCondition(c *v1alpha1.SearchCampaign) (reason, message string, ok bool) {
	cd := meta.FindStatusCondition(c.Status.Conditions, v1alpha1.ConditionFailed)
	if cd == nil {
		return "", "", false
	}
	return cd.Reason, cd.Message, true
}
