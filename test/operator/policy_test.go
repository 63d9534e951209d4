package operator

import (
	"context"
	"strings"
	"testing"
	"time"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers"
	"github.com/blastfleet/blastfleet/internal/operator/policy"
	"github.com/blastfleet/blastfleet/test/support/testenv/testkit"
)

// waitRefused waits until campaign name is not Ready with reason, its
// message holding every part of want, and a warning event says so.
func (h *harness) waitRefused(name, reason string, want ...string) *v1alpha1.SearchCampaign {
	h.t.Helper()
	var c *v1alpha1.SearchCampaign
	h.eventually("campaign "+name+" refused with "+reason, 20*time.Second, func() (bool, string) {
		c = h.get(name)
		cond := meta.FindStatusCondition(c.Status.Conditions, v1alpha1.ConditionReady)
		if cond == nil || cond.Status != metav1.ConditionFalse || cond.Reason != reason {
			return false, "Ready condition " + describeCondition(cond)
		}
		for _, w := range want {
			if !strings.Contains(cond.Message, w) {
				return false, "Ready condition " + describeCondition(cond) + " lacks " + w
			}
		}
		return true, ""
	})
	h.eventually("a "+reason+" event on "+name, 10*time.Second, func() (bool, string) {
		var evs eventsv1.EventList
		if err := h.c.List(context.Background(), &evs, client.InNamespace(h.ns)); err != nil {
			return false, err.Error()
		}
		for _, e := range evs.Items {
			if e.Regarding.Name == name && e.Reason == reason && e.Type == corev1.EventTypeWarning && strings.Contains(e.Note, want[0]) {
				return true, ""
			}
		}
		return false, "no such event among " + itoa(int32(len(evs.Items)))
	})
	return c
}

func describeCondition(c *metav1.Condition) string {
	if c == nil {
		return "absent"
	}
	return string(c.Status) + "/" + c.Reason + ": " + c.Message
}

// noJobs fails if the operator created a planning Job or a partition for
// campaign name.
func (h *harness) noJobs(name string) {
	h.t.Helper()
	var job batchv1.Job
	if err := h.c.Get(context.Background(), client.ObjectKey{Namespace: h.ns, Name: controllers.PlanJobName(name)}, &job); !apierrors.IsNotFound(err) {
		h.t.Errorf("planning Job of %s: %v, want none", name, err)
	}
	if p := h.partitions(name); len(p) != 0 {
		h.t.Errorf("partitions %s created for %s, want none", names(p), name)
	}
}

// TestPolicyRefusesImageAndPlacement: a campaign asking for an image or a
// priority class the operator's policy does not allow waits with reason
// PolicyViolation naming the field, and no Job or MPIJob is created; fixed,
// it goes on. A running campaign changed into a violation creates no
// more partitions and keeps the one it has. A database's image is checked
// the same way.
func TestPolicyRefusesImageAndPlacement(t *testing.T) {
	t.Parallel() // its own API server, MinIO and operator
	h := newHarnessWith(t, policy.Policy{
		RequireCredentialsLabel: true,
		Images:                  []string{"registry.example/blastfleet/*"},
		PriorityClasses:         []string{"batch-low"},
		Endpoints:               []string{"127.0.0.1"}, // MinIO
	})
	h.readyDatabase("sprot", v1alpha1.DatabaseProtein)

	h.putQueries("evil")
	c := h.campaign("evil", "sprot", 1)
	c.Spec.Partitions.Image = "docker.io/evil/x:latest"
	h.create(c)
	h.waitRefused("evil", policy.ReasonViolation, `spec.partitions.image: "docker.io/evil/x:latest" is not allowed by the operator's policy (allowed: registry.example/blastfleet/*)`)
	if got := h.get("evil"); got.Status.Phase != v1alpha1.CampaignPending {
		t.Errorf("phase %s, want Pending", got.Status.Phase)
	}
	time.Sleep(3 * poll) // reconciles that could create something
	h.noJobs("evil")

	// Fixed: planning starts.
	h.update("evil", func(c *v1alpha1.SearchCampaign) { c.Spec.Partitions.Image = "registry.example/blastfleet/worker:v2" })
	h.waitPhase("evil", v1alpha1.CampaignPlanning, 20*time.Second)

	// Running, then asking for a priority class the policy refuses (and a
	// second partition): the first partition stays, no second one comes.
	h.putQueries("prio")
	h.create(h.campaign("prio", "sprot", 1))
	h.writePlan("prio", "sprot", 3)
	job := h.waitPartitions("prio", "prio-p0-r0")["prio-p0-r0"]
	h.setJobCondition(job, kubeflow.JobRunning, "Running", "")
	h.waitPhase("prio", v1alpha1.CampaignRunning, 20*time.Second)
	h.update("prio", func(c *v1alpha1.SearchCampaign) {
		c.Spec.Partitions.PriorityClassName = "system-cluster-critical"
		c.Spec.Partitions.Count = 2
	})
	got := h.waitRefused("prio", policy.ReasonViolation, `spec.partitions.priorityClassName: "system-cluster-critical" is not allowed`, "(allowed: batch-low)")
	if got.Status.Phase != v1alpha1.CampaignRunning {
		t.Errorf("phase %s, want Running: its partition still works", got.Status.Phase)
	}
	if p := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionProgressing); p == nil || p.Status != metav1.ConditionTrue {
		t.Errorf("Progressing %s, want True: a partition created earlier keeps running", describeCondition(p))
	}
	time.Sleep(3 * poll)
	if p := h.partitions("prio"); names(p) != "prio-p0-r0" {
		t.Errorf("partitions %s, want prio-p0-r0 alone: kept, and no new one under the refused spec", names(p))
	}
	h.update("prio", func(c *v1alpha1.SearchCampaign) { c.Spec.Partitions.PriorityClassName = "batch-low" })
	parts := h.waitPartitions("prio", "prio-p0-r0", "prio-p1-r0")
	if pc := parts["prio-p1-r0"].Spec.MPIReplicaSpecs[kubeflow.MPIReplicaTypeWorker].Template.Spec.PriorityClassName; pc != "batch-low" {
		t.Errorf("the new partition's priority class is %q, want batch-low", pc)
	}

	// A database whose image the policy refuses builds nothing.
	db := &v1alpha1.BlastDatabase{
		ObjectMeta: metav1.ObjectMeta{Name: "evildb", Namespace: h.ns},
		Spec: v1alpha1.BlastDatabaseSpec{Source: v1alpha1.ObjectReference{Key: "fasta/x.fa"}, Type: v1alpha1.DatabaseProtein,
			Shards: v1alpha1.Sharding{Count: ptr.To[int32](2)}, Storage: h.output("databases"), Image: "docker.io/evil/x:latest"},
	}
	h.create(db)
	h.waitDatabaseReason("evildb", policy.ReasonViolation, `spec.image: "docker.io/evil/x:latest" is not allowed`)
	var jobs batchv1.JobList
	if err := h.c.List(context.Background(), &jobs, client.InNamespace(h.ns), client.MatchingLabels{controllers.LabelDatabase: "evildb"}); err != nil || len(jobs.Items) != 0 {
		t.Errorf("sharding Jobs for a refused database: %d (%v), want none", len(jobs.Items), err)
	}
}

// waitDatabaseReason waits until database name is Pending with reason and
// a message holding want.
func (h *harness) waitDatabaseReason(name, reason, want string) {
	h.t.Helper()
	h.eventually("database "+name+" "+reason, 20*time.Second, func() (bool, string) {
		var db v1alpha1.BlastDatabase
		if err := h.c.Get(context.Background(), client.ObjectKey{Namespace: h.ns, Name: name}, &db); err != nil {
			return false, err.Error()
		}
		cond := meta.FindStatusCondition(db.Status.Conditions, v1alpha1.ConditionReady)
		return db.Status.Phase == v1alpha1.DatabasePending && cond != nil && cond.Reason == reason && strings.Contains(cond.Message, want),
			string(db.Status.Phase) + " " + describeCondition(cond)
	})
}

// TestPolicyRefusesEndpoint: with an endpoint allowlist, a campaign and a
// database on an endpoint outside it (here MinIO on 127.0.0.1, a loopback
// address the list does not name) wait with PolicyViolation naming the
// field, before the operator reaches the store or creates anything.
func TestPolicyRefusesEndpoint(t *testing.T) {
	t.Parallel() // its own API server, MinIO and operator
	h := newHarnessWith(t, policy.Policy{RequireCredentialsLabel: true, Endpoints: []string{"minio.storage.svc", "0.0.0.0/0"}})
	h.readyDatabase("sprot", v1alpha1.DatabaseProtein)
	h.putQueries("local")
	h.create(h.campaign("local", "sprot", 1))
	h.waitRefused("local", policy.ReasonViolation, `spec.output: endpoint: "`+h.minio.Endpoint+`" is not allowed by the operator's policy`,
		"is an internal address (127.0.0.0/8)")
	time.Sleep(3 * poll)
	h.noJobs("local")

	db := &v1alpha1.BlastDatabase{
		ObjectMeta: metav1.ObjectMeta{Name: "localdb", Namespace: h.ns},
		Spec: v1alpha1.BlastDatabaseSpec{Source: v1alpha1.ObjectReference{Key: "fasta/x.fa"}, Type: v1alpha1.DatabaseProtein,
			Shards: v1alpha1.Sharding{Count: ptr.To[int32](2)}, Storage: h.output("databases")},
	}
	h.create(db)
	h.waitDatabaseReason("localdb", policy.ReasonViolation, `spec.storage: endpoint: "`+h.minio.Endpoint+`" is not allowed`)
}

// TestCredentialsSecretOptIn: a Secret without the label
// blastfleet.io/credentials=true is refused (CredentialsSecretNotAllowed,
// nothing created); labelled, the same Secret is used and the campaign
// plans. Without the rule (--require-credentials-label=false) the label
// is not needed.
func TestCredentialsSecretOptIn(t *testing.T) {
	t.Parallel() // its own API server, MinIO and operator
	h := newHarness(t)
	h.readyDatabase("sprot", v1alpha1.DatabaseProtein)
	sec := testkit.MinIOSecret(h.minio, h.ns, "unlabelled")
	delete(sec.Labels, v1alpha1.CredentialsLabel)
	h.create(sec)
	h.putQueries("optin")
	c := h.campaign("optin", "sprot", 1)
	c.Spec.Output.CredentialsSecretRef.Name = "unlabelled"
	h.create(c)
	h.waitRefused("optin", policy.ReasonSecretNotAllowed, `spec.output: credentialsSecretRef: Secret "unlabelled" is not one the operator's policy lets it use as credentials: it must exist in the namespace and carry the label blastfleet.io/credentials=true`)
	time.Sleep(3 * poll)
	h.noJobs("optin")

	sec.Labels = map[string]string{v1alpha1.CredentialsLabel: "true"}
	if err := h.c.Update(context.Background(), sec); err != nil {
		t.Fatal(err)
	}
	h.waitPhase("optin", v1alpha1.CampaignPlanning, 20*time.Second)

	// The rule off: an unlabelled Secret is used as before.
	h.stopOperator()
	h.policy.RequireCredentialsLabel = false
	h.startOperator()
	other := testkit.MinIOSecret(h.minio, h.ns, "legacy")
	other.Labels = nil
	h.create(other)
	h.putQueries("legacy")
	c = h.campaign("legacy", "sprot", 1)
	c.Spec.Output.CredentialsSecretRef.Name = "legacy"
	h.create(c)
	h.waitPhase("legacy", v1alpha1.CampaignPlanning, 20*time.Second)
}
