package controllers

import (
	"context"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/operator/kubescheme"
	"github.com/blastfleet/blastfleet/internal/operator/policy"
)

// replicaHarness is a DatabaseReconciler on a fake API server holding db
// and the Secret east-creds (opted in as credentials).
type replicaHarness struct {
	t      *testing.T
	ctx    context.Context
	c      client.Client
	r      *DatabaseReconciler
	events *events.FakeRecorder
}

func newReplicaHarness(t *testing.T, db *v1alpha1.BlastDatabase) *replicaHarness {
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "east-creds", Namespace: "ns", Labels: map[string]string{v1alpha1.CredentialsLabel: "true"}}}
	c := fake.NewClientBuilder().WithScheme(kubescheme.New()).WithObjects(db, secret).
		WithStatusSubresource(&v1alpha1.BlastDatabase{}).Build()
	rec := events.NewFakeRecorder(100)
	r := &DatabaseReconciler{Client: c, Scheme: c.Scheme(), Recorder: rec, WorkerImage: "worker:test", PollInterval: time.Second,
		// A replica without a Secret is reached with the pods' identity,
		// which needs its endpoint listed.
		Stores: StoreOpener{Secrets: c, Policy: policy.Policy{RequireCredentialsLabel: true, Endpoints: []string{"minio", "far"}}}}
	return &replicaHarness{t: t, ctx: context.Background(), c: c, r: r, events: rec}
}

func (h *replicaHarness) reconcile() ctrl.Result {
	h.t.Helper()
	res, err := h.r.Reconcile(h.ctx, ctrl.Request{NamespacedName: client.ObjectKey{Namespace: "ns", Name: "sprot"}})
	if err != nil {
		h.t.Fatalf("reconcile: %v", err)
	}
	return res
}

func (h *replicaHarness) database() *v1alpha1.BlastDatabase {
	h.t.Helper()
	var db v1alpha1.BlastDatabase
	if err := h.c.Get(h.ctx, client.ObjectKey{Namespace: "ns", Name: "sprot"}, &db); err != nil {
		h.t.Fatal(err)
	}
	return &db
}

// jobs are the database's replica Jobs by replica name.
func (h *replicaHarness) jobs() map[string]*batchv1.Job {
	h.t.Helper()
	var list batchv1.JobList
	if err := h.c.List(h.ctx, &list, client.MatchingLabels{LabelComponent: componentReplica}); err != nil {
		h.t.Fatal(err)
	}
	out := map[string]*batchv1.Job{}
	for i := range list.Items {
		out[list.Items[i].Labels[LabelReplica]] = &list.Items[i]
	}
	return out
}

// finish marks the Job with a terminal condition, as the Job controller.
func (h *replicaHarness) finish(job *batchv1.Job, t batchv1.JobConditionType, msg string) {
	h.t.Helper()
	job.Status.Conditions = append(job.Status.Conditions, batchv1.JobCondition{Type: t, Status: corev1.ConditionTrue, Reason: "Test", Message: msg})
	if err := h.c.Status().Update(h.ctx, job); err != nil {
		h.t.Fatal(err)
	}
}

func (h *replicaHarness) drainEvents() string {
	var out []string
	for {
		select {
		case e := <-h.events.Events:
			out = append(out, e)
		default:
			return strings.Join(out, "\n")
		}
	}
}

func replicaStates(db *v1alpha1.BlastDatabase) string {
	var out []string
	for _, s := range db.Status.Replicas {
		out = append(out, s.Name+"="+string(s.State))
	}
	return strings.Join(out, " ")
}

// A Ready database gets a copy Job per replica; each replica takes its
// Job's outcome; a failed copy leaves the database Ready and Degraded;
// settled replicas are not copied again when their Jobs are gone.
func TestDatabaseReplicasFollowTheirJobs(t *testing.T) {
	h := newReplicaHarness(t, aReadyDatabase(aReplica("east", "dbs-east", "east-creds"), aReplica("west", "dbs-west", "")))

	if res := h.reconcile(); res.RequeueAfter == 0 {
		t.Error("no requeue while copies run")
	}
	jobs := h.jobs()
	if len(jobs) != 2 || jobs["east"] == nil || jobs["west"] == nil {
		t.Fatalf("replica Jobs %v, want one for east and west", jobs)
	}
	for _, j := range jobs {
		if !metav1.IsControlledBy(j, h.database()) {
			t.Errorf("Job %s is not owned by the database", j.Name)
		}
	}
	db := h.database()
	if got := replicaStates(db); got != "east=Copying west=Copying" || db.Status.ReplicasReady != "0/2" {
		t.Errorf("replicas %s (%s), want both Copying (0/2)", got, db.Status.ReplicasReady)
	}
	if c := meta.FindStatusCondition(db.Status.Conditions, v1alpha1.ConditionProgressing); c == nil || c.Status != metav1.ConditionTrue || c.Reason != reasonReplicating {
		t.Errorf("Progressing %+v, want True (Replicating)", c)
	}
	if s := db.Status.Replicas[0]; s.Location != "s3://dbs-east/copies/ns/sprot" || s.Job != jobs["east"].Name || s.Build != db.Status.Build || s.LastTransitionTime == nil {
		t.Errorf("east status %+v", s)
	}
	h.drainEvents()

	h.finish(jobs["east"], batchv1.JobComplete, "")
	h.finish(jobs["west"], batchv1.JobFailed, "BackoffLimitExceeded")
	if res := h.reconcile(); res.RequeueAfter != 0 {
		t.Errorf("requeue after %v with every copy finished", res.RequeueAfter)
	}
	db = h.database()
	if got := replicaStates(db); got != "east=Ready west=Failed" || db.Status.ReplicasReady != "1/2" {
		t.Errorf("replicas %s (%s), want east Ready, west Failed (1/2)", got, db.Status.ReplicasReady)
	}
	if db.Status.Phase != v1alpha1.DatabaseReady {
		t.Errorf("phase %s: a failed replica must leave the database Ready", db.Status.Phase)
	}
	if b := db.Status.Replicas[0].Bytes; b != 4096 {
		t.Errorf("east bytes %d, want the build's 4096", b)
	}
	if c := meta.FindStatusCondition(db.Status.Conditions, v1alpha1.ConditionDegraded); c == nil || c.Status != metav1.ConditionTrue || !strings.Contains(c.Message, "west") {
		t.Errorf("Degraded %+v, want True naming west", c)
	}
	if c := meta.FindStatusCondition(db.Status.Conditions, v1alpha1.ConditionReady); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("Ready %+v, want True", c)
	}
	ev := h.drainEvents()
	if !strings.Contains(ev, "Normal ReplicaReady replica east") || !strings.Contains(ev, "Warning ReplicaFailed replica west") {
		t.Errorf("events:\n%s\nwant ReplicaReady for east and a ReplicaFailed warning for west", ev)
	}

	// Finished Jobs go after their TTL: nothing is copied again.
	for _, j := range h.jobs() {
		if err := h.c.Delete(h.ctx, j); err != nil {
			t.Fatal(err)
		}
	}
	h.reconcile()
	if jobs := h.jobs(); len(jobs) != 0 {
		t.Errorf("Jobs %v created again for settled replicas", jobs)
	}
	if got := replicaStates(h.database()); got != "east=Ready west=Failed" {
		t.Errorf("replicas %s after their Jobs went, want them unchanged", got)
	}
}

// A replica removed loses its status and its running Job; one changed
// is copied again by a new Job.
func TestDatabaseReplicasChange(t *testing.T) {
	h := newReplicaHarness(t, aReadyDatabase(aReplica("east", "dbs-east", "east-creds"), aReplica("west", "dbs-west", "")))
	h.reconcile()
	old := h.jobs()

	db := h.database()
	db.Spec.Replicas = []v1alpha1.DatabaseReplica{aReplica("east", "dbs-east", "east-creds")}
	db.Spec.Replicas[0].Storage.Prefix = "moved"
	db.Generation++
	if err := h.c.Update(h.ctx, db); err != nil {
		t.Fatal(err)
	}
	h.reconcile()
	jobs := h.jobs()
	if len(jobs) != 1 || jobs["east"] == nil || jobs["east"].Name == old["east"].Name {
		t.Fatalf("Jobs %v after the change, want only a new Job for east (the old %s and west's gone)", jobs, old["east"].Name)
	}
	db = h.database()
	if got := replicaStates(db); got != "east=Copying" || db.Status.Replicas[0].Location != "s3://dbs-east/moved/ns/sprot" || db.Status.ReplicasReady != "0/1" {
		t.Errorf("replicas %s at %s (%s), want east Copying to its new place (0/1)", got, db.Status.Replicas[0].Location, db.Status.ReplicasReady)
	}

	db.Spec.Replicas = nil
	if err := h.c.Update(h.ctx, db); err != nil {
		t.Fatal(err)
	}
	h.reconcile()
	db = h.database()
	if len(h.jobs()) != 0 || len(db.Status.Replicas) != 0 || db.Status.ReplicasReady != "" {
		t.Errorf("Jobs %v, replicas %+v (%q) with none named", h.jobs(), db.Status.Replicas, db.Status.ReplicasReady)
	}
	if c := meta.FindStatusCondition(db.Status.Conditions, v1alpha1.ConditionProgressing); c == nil || c.Status != metav1.ConditionFalse {
		t.Errorf("Progressing %+v, want False", c)
	}
}

// Before the build is Ready, replicas wait; a replica whose Secret the
// policy refuses waits with the refusal, and gets no Job.
func TestDatabaseReplicasWait(t *testing.T) {
	db := aReadyDatabase(aReplica("east", "dbs-east", "east-creds"), aReplica("north", "dbs-north", "unlabelled"))
	h := newReplicaHarness(t, db)
	plain := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "unlabelled", Namespace: "ns"}}
	if err := h.c.Create(h.ctx, plain); err != nil {
		t.Fatal(err)
	}

	sharding := db.DeepCopy()
	sharding.Status.Phase = v1alpha1.DatabaseSharding
	run := &databaseRun{r: h.r, db: sharding, before: sharding.Status.DeepCopy()}
	if _, err := run.replicate(h.ctx); err != nil {
		t.Fatal(err)
	}
	for _, s := range sharding.Status.Replicas {
		if s.State != v1alpha1.ReplicaPending || !strings.Contains(s.Message, "waiting for the database to be Ready") {
			t.Errorf("%s while sharding: %s %q, want Pending", s.Name, s.State, s.Message)
		}
	}
	if len(h.jobs()) != 0 {
		t.Errorf("Jobs %v before the build is Ready", h.jobs())
	}

	h.reconcile()
	got := h.database()
	if s := got.Status.Replicas[1]; s.State != v1alpha1.ReplicaPending || !strings.Contains(s.Message, "spec.replicas[1].storage.credentialsSecretRef") {
		t.Errorf("north %s %q, want Pending naming its Secret field", s.State, s.Message)
	}
	if jobs := h.jobs(); len(jobs) != 1 || jobs["east"] == nil {
		t.Errorf("Jobs %v, want east's alone", jobs)
	}
}
