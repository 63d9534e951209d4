package operator

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/operator/policy"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
)

// TestMissingQueries: a campaign whose queries object does not exist ends
// Failed, naming the field and the object, before anything runs.
func TestMissingQueries(t *testing.T) {
	t.Parallel() // its own API server, MinIO and operator
	h := newHarness(t)
	h.readyDatabase("sprot", v1alpha1.DatabaseProtein)
	h.create(h.campaign("noqueries", "sprot", 1))
	c := h.waitPhase("noqueries", v1alpha1.CampaignFailed, 20*time.Second)
	cond := meta.FindStatusCondition(c.Status.Conditions, v1alpha1.ConditionFailed)
	if cond == nil || cond.Reason != "QueriesNotFound" || !strings.Contains(cond.Message, "spec.queries") || !strings.Contains(cond.Message, "s3://blastfleet/queries/noqueries.fa") {
		t.Errorf("Failed condition %+v, want reason QueriesNotFound naming spec.queries and the object", cond)
	}
	if len(h.partitions("noqueries")) != 0 {
		t.Error("partitions created for a campaign that failed validation")
	}
}

// TestWrongDatabaseType: blastn against a protein database fails at once.
func TestWrongDatabaseType(t *testing.T) {
	t.Parallel() // its own API server, MinIO and operator
	h := newHarness(t)
	h.readyDatabase("sprot", v1alpha1.DatabaseProtein)
	c := h.campaign("wrongtype", "sprot", 1)
	c.Spec.Program = "blastn"
	h.create(c)
	got := h.waitPhase("wrongtype", v1alpha1.CampaignFailed, 20*time.Second)
	if cond := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionFailed); cond == nil || !strings.Contains(cond.Message, "spec.program") {
		t.Errorf("Failed condition %+v, want it to name spec.program", cond)
	}
}

// TestRestartBudget: partitions are replaced until the budget is used up,
// then the campaign fails with the last partition's reason.
func TestRestartBudget(t *testing.T) {
	t.Parallel() // its own API server, MinIO and operator
	h := newHarness(t)
	h.readyDatabase("sprot", v1alpha1.DatabaseProtein)
	h.putQueries("budget")
	c := h.campaign("budget", "sprot", 1)
	c.Spec.RetryPolicy.MaxPartitionRestarts = 2
	h.create(c)
	h.writePlan("budget", "sprot", 3)
	for restart, name := range []string{"budget-p0-r0", "budget-p0-r1", "budget-p0-r2"} {
		job := h.waitPartitions("budget", name)[name]
		h.setJobCondition(job, kubeflow.JobFailed, "BackoffLimitExceeded", "launcher exited: attempt "+itoa(int32(restart)))
	}
	got := h.waitPhase("budget", v1alpha1.CampaignFailed, 20*time.Second)
	cond := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionFailed)
	if cond == nil || cond.Reason != "PartitionsFailed" || !strings.Contains(cond.Message, "maxPartitionRestarts=2") || !strings.Contains(cond.Message, "attempt 2") {
		t.Errorf("Failed condition %+v", cond)
	}
	if got.Status.Partitions.Replaced != 2 {
		t.Errorf("replaced = %d, want 2", got.Status.Partitions.Replaced)
	}
}

// TestTypedClientDefaults: a campaign built in Go with zero partitions,
// chunking and retry policy gets the schema's defaults (omitzero), not
// zeros.
func TestTypedClientDefaults(t *testing.T) {
	t.Parallel() // its own API server, MinIO and operator
	h := newHarness(t)
	c := h.campaign("typed", "sprot", 1)
	c.Spec.Partitions, c.Spec.RetryPolicy, c.Spec.Chunking = v1alpha1.Partitions{}, v1alpha1.RetryPolicy{}, v1alpha1.Chunking{}
	h.create(c)
	got := h.get("typed").Spec
	if p := got.Partitions; p.Count != 1 || p.Workers != 2 || p.SlotsPerWorker != 1 {
		t.Errorf("partitions %+v, want the defaults 1/2/1", p)
	}
	if r := got.RetryPolicy; r.MaxAttempts != 3 || r.MaxPartitionRestarts != 10 || r.BackoffSeconds != 10 || r.ClockSkewSeconds != 30 {
		t.Errorf("retryPolicy %+v, want the defaults", r)
	}
	if got.Chunking.Letters == nil || *got.Chunking.Letters != 1000000 {
		t.Errorf("chunking %+v, want letters 1000000", got.Chunking)
	}
}

// TestInvalidSearch: once a partition records in the ledger that BLAST+
// refuses the search, the campaign fails with InvalidSearch and BLAST's
// words, and its partitions are wound down, not replaced.
func TestInvalidSearch(t *testing.T) {
	t.Parallel() // its own API server, MinIO and operator
	h := newHarness(t)
	h.readyDatabase("sprot", v1alpha1.DatabaseProtein)
	h.putQueries("invalid")
	h.create(h.campaign("invalid", "sprot", 1))
	l := h.writePlan("invalid", "sprot", 3)
	h.waitPartitions("invalid", "invalid-p0-r0")
	ls, err := l.Acquire(context.Background(), "invalid-p0-r0")
	if err != nil {
		t.Fatal(err)
	}
	reason := ledger.FailureReason{Message: `BLAST+ refuses the search (blastp -word_size 1): Error: Argument "word_size". Illegal value, expected >=2`, ExitCode: 1, Config: true}
	if err := ls.Fail(context.Background(), reason); err != nil {
		t.Fatal(err)
	}
	if err := l.MarkInvalid(context.Background(), "invalid-p0-r0", reason); err != nil {
		t.Fatal(err)
	}
	got := h.waitPhase("invalid", v1alpha1.CampaignFailed, 30*time.Second)
	cond := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionFailed)
	if cond == nil || cond.Reason != "InvalidSearch" || !strings.Contains(cond.Message, `"word_size". Illegal value`) {
		t.Errorf("Failed condition %+v, want InvalidSearch with BLAST's words", cond)
	}
	if got.Status.Progress == "100%" {
		t.Errorf("progress %q for a campaign with nothing committed", got.Status.Progress)
	}
}

// TestDatabaseChanged: once a partition records that the campaign's
// database is not the one it was planned against, the campaign fails with
// DatabaseChanged (not InvalidSearch), saying why.
func TestDatabaseChanged(t *testing.T) {
	t.Parallel() // its own API server, MinIO and operator
	h := newHarness(t)
	h.readyDatabase("sprot", v1alpha1.DatabaseProtein)
	h.putQueries("changed")
	h.create(h.campaign("changed", "sprot", 1))
	l := h.writePlan("changed", "sprot", 3)
	h.waitPartitions("changed", "changed-p0-r0")
	reason := ledger.FailureReason{Message: "the database is not the one the campaign was planned against: s3://x/builds/b1/manifest.json is gone", Database: true}
	if err := l.MarkInvalid(context.Background(), "changed-p0-r0", reason); err != nil {
		t.Fatal(err)
	}
	got := h.waitPhase("changed", v1alpha1.CampaignFailed, 30*time.Second)
	cond := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionFailed)
	if cond == nil || cond.Reason != "DatabaseChanged" || !strings.Contains(cond.Message, "builds/b1/manifest.json is gone") {
		t.Errorf("Failed condition %+v, want DatabaseChanged with the reason", cond)
	}
}

// TestStorageReasons: a campaign whose credentials the store refuses, or
// whose Secret does not exist, waits with a reason that says so, not with
// StorageUnavailable (a store that is down); a missing Secret with the
// reason and message of an unlabelled one.
func TestStorageReasons(t *testing.T) {
	t.Parallel() // its own API server, MinIO and operator
	h := newHarness(t)
	h.readyDatabase("sprot", v1alpha1.DatabaseProtein)
	h.create(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "wrong-keys", Namespace: h.ns, Labels: map[string]string{v1alpha1.CredentialsLabel: "true"}},
		StringData: map[string]string{"AWS_ACCESS_KEY_ID": "nobody", "AWS_SECRET_ACCESS_KEY": "not-the-secret-key"}})
	for _, c := range []struct{ name, secret, reason string }{
		{"wrong-keys", "wrong-keys", "StorageAccessDenied"},
		// Refused as an unlabelled Secret is (the default policy requires
		// the label): an author learns nothing of which Secrets exist.
		{"no-secret", "absent", policy.ReasonSecretNotAllowed},
	} {
		camp := h.campaign(c.name, "sprot", 1)
		camp.Spec.Output.CredentialsSecretRef.Name = c.secret
		h.create(camp)
		h.eventually(c.name+" waiting with "+c.reason, 20*time.Second, func() (bool, string) {
			got := h.get(c.name)
			cond := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionReady)
			if cond == nil || cond.Reason != c.reason || got.Status.Phase != v1alpha1.CampaignPending {
				return false, fmt.Sprintf("phase %s, Ready %+v", got.Status.Phase, cond)
			}
			return true, ""
		})
	}
}

// TestFailedQueryDegrades: a query given up on after every retry does not
// fail the campaign: it ends Complete with the other queries' result, a
// Degraded condition naming the query, and status.failedQueries.
func TestFailedQueryDegrades(t *testing.T) {
	t.Parallel() // its own API server, MinIO and operator
	h := newHarness(t)
	h.readyDatabase("sprot", v1alpha1.DatabaseProtein)
	h.putQueries("degraded")
	h.create(h.campaign("degraded", "sprot", 1))
	l := h.writePlan("degraded", "sprot", 5) // chunks [0,2) [2,4) [4,5)
	parts := h.waitPartitions("degraded", "degraded-p0-r0")
	// The poison query: every attempt of its chunk fails.
	h.settleAll(l, func(r ledger.Range) *ledger.FailureReason {
		if r.First == 4 {
			return &ledger.FailureReason{Message: "blastp was killed", Signal: "SIGSEGV", QueryID: "poison-1"}
		}
		return nil
	})
	h.assembleAsPartition(l)
	h.partitionExited(parts["degraded-p0-r0"])
	got := h.waitPhase("degraded", v1alpha1.CampaignComplete, 30*time.Second)
	s := got.Status
	if cond := meta.FindStatusCondition(s.Conditions, v1alpha1.ConditionDegraded); cond == nil || cond.Status != metav1.ConditionTrue ||
		cond.Reason != "QueriesFailed" || !strings.Contains(cond.Message, "1 of 5 queries failed") || !strings.Contains(cond.Message, "poison-1") {
		t.Errorf("Degraded condition %+v, want True/QueriesFailed naming poison-1", cond)
	}
	if cond := meta.FindStatusCondition(s.Conditions, v1alpha1.ConditionComplete); cond == nil || cond.Status != metav1.ConditionTrue {
		t.Errorf("Complete condition %+v, want True", cond)
	}
	if len(s.FailedQueries) != 1 || s.FailedQueries[0].Index != 4 || s.FailedQueries[0].ID != "poison-1" || !strings.Contains(s.FailedQueries[0].Reason, "SIGSEGV") {
		t.Errorf("failedQueries %+v, want query 4 (poison-1) with its signal", s.FailedQueries)
	}
	if s.Result == "" || s.Queries.Done != 4 || s.Queries.Failed != 1 {
		t.Errorf("result %q, queries %+v: want the other 4 queries' result", s.Result, s.Queries)
	}
}
