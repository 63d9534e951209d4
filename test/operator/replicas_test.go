package operator

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers"
	"github.com/blastfleet/blastfleet/internal/operator/policy"
	"github.com/blastfleet/blastfleet/test/support/testenv/testkit"
)

// replicaJobs are the database's copy Jobs by replica name.
func (h *harness) replicaJobs(db string) map[string]*batchv1.Job {
	h.t.Helper()
	var list batchv1.JobList
	if err := h.c.List(context.Background(), &list, client.InNamespace(h.ns),
		client.MatchingLabels{controllers.LabelDatabase: db, "app.kubernetes.io/component": "replica"}); err != nil {
		h.t.Fatal(err)
	}
	m := map[string]*batchv1.Job{}
	for i := range list.Items {
		if list.Items[i].DeletionTimestamp.IsZero() {
			m[list.Items[i].Labels[controllers.LabelReplica]] = &list.Items[i]
		}
	}
	return m
}

// finishJob ends a Job as the Job controller does: its interim
// condition, then the terminal one, in two status writes (the API server
// refuses a terminal condition without its interim one).
func (h *harness) finishJob(job *batchv1.Job, ok bool, msg string) {
	h.t.Helper()
	ctx, now := context.Background(), metav1.Now()
	interim, final, reason := batchv1.JobSuccessCriteriaMet, batchv1.JobComplete, batchv1.JobReasonCompletionsReached
	if !ok {
		interim, final, reason = batchv1.JobFailureTarget, batchv1.JobFailed, batchv1.JobReasonBackoffLimitExceeded
	}
	cond := func(t batchv1.JobConditionType) batchv1.JobCondition {
		return batchv1.JobCondition{Type: t, Status: corev1.ConditionTrue, Reason: reason, Message: msg, LastProbeTime: now, LastTransitionTime: now}
	}
	job.Status.StartTime = &now
	if ok {
		job.Status.Succeeded = 1
	} else {
		job.Status.Failed = 4
	}
	job.Status.Conditions = append(job.Status.Conditions, cond(interim))
	if err := h.c.Status().Update(ctx, job); err != nil {
		h.t.Fatalf("%s on Job %s: %v", interim, job.Name, err)
	}
	job.Status.Conditions = append(job.Status.Conditions, cond(final))
	if ok {
		job.Status.CompletionTime = &now
	}
	if err := h.c.Status().Update(ctx, job); err != nil {
		h.t.Fatalf("%s on Job %s: %v", final, job.Name, err)
	}
}

// TestDatabaseReplicas: replicas added to a Ready database are each
// filled by a copy Job reaching the primary and the replica with their
// own Secrets; the replica takes its Job's outcome, a failed copy leaves
// the database Ready and Degraded; a campaign's ranks get the Ready
// replica, and only it, as a flag and its store's variables.
func TestDatabaseReplicas(t *testing.T) {
	t.Parallel() // its own API server, MinIO and operator
	h := newHarness(t)
	ctx := context.Background()
	h.create(testkit.MinIOSecret(h.minio, h.ns, "replica-credentials"))
	db := h.readyDatabase("sprot", v1alpha1.DatabaseProtein)

	h.eventually("replicas added", 10*time.Second, func() (bool, string) {
		if err := h.c.Get(ctx, client.ObjectKeyFromObject(db), db); err != nil {
			return false, err.Error()
		}
		east, west := h.output("databases"), h.output("databases")
		east.Bucket, west.Bucket = "blastfleet-east", "blastfleet-west"
		east.CredentialsSecretRef = &v1alpha1.CredentialsSecretRef{Name: "replica-credentials"}
		db.Spec.Replicas = []v1alpha1.DatabaseReplica{{Name: "east", Storage: east}, {Name: "west", Storage: west}}
		if err := h.c.Update(ctx, db); err != nil {
			return false, err.Error()
		}
		return true, ""
	})

	var jobs map[string]*batchv1.Job
	h.eventually("a copy Job per replica", 10*time.Second, func() (bool, string) {
		jobs = h.replicaJobs("sprot")
		return len(jobs) == 2 && jobs["east"] != nil && jobs["west"] != nil, fmt.Sprint(len(jobs), " Jobs")
	})
	east := jobs["east"]
	args := strings.Join(east.Spec.Template.Spec.Containers[0].Args, " ")
	if want := "db replicate --from s3://blastfleet/databases/default/sprot --to s3://blastfleet-east/databases/default/sprot"; args != want {
		t.Errorf("east's copy runs %q, want %q", args, want)
	}
	if !metav1.IsControlledBy(east, db) {
		t.Errorf("Job %s is not owned by the database", east.Name)
	}
	h.noSecretsIn(east)
	var refs []string
	for _, e := range east.Spec.Template.Spec.Containers[0].Env {
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
			refs = append(refs, e.Name+"="+e.ValueFrom.SecretKeyRef.Name)
		}
	}
	for _, want := range []string{"BLASTFLEET_DATABASE_AWS_ACCESS_KEY_ID=" + secretName, "BLASTFLEET_REPLICA1_AWS_SECRET_ACCESS_KEY=replica-credentials"} {
		if !strings.Contains(strings.Join(refs, " "), want) {
			t.Errorf("east's copy has Secret references %q, want %s", refs, want)
		}
	}
	h.waitReplicas("sprot", "east=Copying west=Copying", "0/2")

	h.finishJob(jobs["east"], true, "")
	h.finishJob(jobs["west"], false, "Job has reached the specified backoff limit")
	got := h.waitReplicas("sprot", "east=Ready west=Failed", "1/2")
	if got.Status.Phase != v1alpha1.DatabaseReady {
		t.Errorf("phase %s with a failed replica, want Ready", got.Status.Phase)
	}
	if c := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionDegraded); c == nil || c.Status != metav1.ConditionTrue || !strings.Contains(c.Message, "west") {
		t.Errorf("Degraded %+v, want True naming west", c)
	}
	if s := got.Status.Replicas[0]; s.Bytes != dbBytes || s.LastTransitionTime == nil {
		t.Errorf("east %+v, want the build's %d bytes and a transition time", s, dbBytes)
	}

	// A campaign's ranks read the Ready replica, not the failed one.
	h.putQueries("rep")
	c := h.campaign("rep", "sprot", 1)
	h.create(c)
	h.writePlan("rep", "sprot", 2)
	parts := h.waitPartitions("rep", "rep-p0-r0")
	launcher := parts["rep-p0-r0"].Spec.MPIReplicaSpecs[kubeflow.MPIReplicaTypeLauncher].Template.Spec.Containers[0]
	cmd := strings.Join(launcher.Args, " ")
	if !strings.Contains(cmd, "--database-replica s3://blastfleet-east/databases/default/sprot") || strings.Contains(cmd, "blastfleet-west") {
		t.Errorf("mpirun %s: want east's location as --database-replica and not west's", cmd)
	}
	var replicaKey string
	for _, e := range launcher.Env {
		if e.Name == "BLASTFLEET_REPLICA1_AWS_ACCESS_KEY_ID" && e.ValueFrom != nil {
			replicaKey = e.ValueFrom.SecretKeyRef.Name
		}
		if strings.HasPrefix(e.Name, "BLASTFLEET_REPLICA2_") {
			t.Errorf("%s set: one replica is Ready", e.Name)
		}
	}
	if replicaKey != "replica-credentials" {
		t.Errorf("BLASTFLEET_REPLICA1_AWS_ACCESS_KEY_ID from Secret %q, want replica-credentials", replicaKey)
	}

	// A Ready replica's Secret that loses its opt-in label holds back a
	// new campaign, naming the replica's field, as the database's own.
	var sec corev1.Secret
	if err := h.c.Get(ctx, client.ObjectKey{Namespace: h.ns, Name: "replica-credentials"}, &sec); err != nil {
		t.Fatal(err)
	}
	sec.Labels = nil
	if err := h.c.Update(ctx, &sec); err != nil {
		t.Fatal(err)
	}
	h.putQueries("unlabelled")
	h.create(h.campaign("unlabelled", "sprot", 1))
	h.waitRefused("unlabelled", policy.ReasonSecretNotAllowed, "BlastDatabase sprot spec.replicas[0].storage.credentialsSecretRef")
	h.noJobs("unlabelled")

	// Removing the failed replica deletes its Job and clears Degraded.
	h.eventually("west removed", 10*time.Second, func() (bool, string) {
		if err := h.c.Get(ctx, client.ObjectKeyFromObject(db), db); err != nil {
			return false, err.Error()
		}
		db.Spec.Replicas = db.Spec.Replicas[:1]
		if err := h.c.Update(ctx, db); err != nil {
			return false, err.Error()
		}
		return true, ""
	})
	got = h.waitReplicas("sprot", "east=Ready", "1/1")
	if c := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionDegraded); c == nil || c.Status != metav1.ConditionFalse {
		t.Errorf("Degraded %+v once the failed replica is gone, want False", c)
	}
	h.eventually("west's Job deleted", 10*time.Second, func() (bool, string) {
		jobs := h.replicaJobs("sprot")
		return jobs["west"] == nil, fmt.Sprint(len(jobs), " Jobs")
	})
}

// waitReplicas waits until the database's replicas are in the states
// given ("name=State ...") with replicasReady ready.
func (h *harness) waitReplicas(name, states, ready string) *v1alpha1.BlastDatabase {
	h.t.Helper()
	var db v1alpha1.BlastDatabase
	h.eventually("replicas "+states, 20*time.Second, func() (bool, string) {
		if err := h.c.Get(context.Background(), client.ObjectKey{Namespace: h.ns, Name: name}, &db); err != nil {
			return false, err.Error()
		}
		var got []string
		for _, s := range db.Status.Replicas {
			got = append(got, s.Name+"="+string(s.State))
		}
		s := strings.Join(got, " ")
		return s == states && db.Status.ReplicasReady == ready, s + " (" + db.Status.ReplicasReady + ")"
	})
	return &db
}
