package controllers

import (
	"slices"
	"strings"
	"testing"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers/executor/mpijob"
)

// withReplicaStatus gives db's replica name the state s, as the operator
// writes it for the replica as the spec names it now.
func withReplicaStatus(db *v1alpha1.BlastDatabase, name string, s v1alpha1.ReplicaState) {
	for _, r := range db.Spec.Replicas {
		if r.Name == name {
			db.Status.Replicas = append(db.Status.Replicas, v1alpha1.ReplicaStatus{Name: name, State: s,
				Location: replicaLocation(db, r), Build: db.Status.Build, Job: ReplicaJobName(db.Name, name, replicaHash(db, r))})
		}
	}
}

// Engine ranks get a --database-replica per Ready replica, in spec
// order, and the n-th one's store as BLASTFLEET_REPLICA<n>_AWS_*; replicas
// Failed, Copying, or changed since their copy are not passed.
func TestPartitionSpecReplicas(t *testing.T) {
	db := aReadyDatabase(aReplica("a", "dbs-a", "a-creds"), aReplica("b", "dbs-b", "b-creds"),
		aReplica("c", "dbs-c", ""), aReplica("d", "dbs-d", "d-creds"), aReplica("e", "dbs-e", "e-creds"))
	withReplicaStatus(db, "a", v1alpha1.ReplicaReady)
	withReplicaStatus(db, "b", v1alpha1.ReplicaFailed)
	withReplicaStatus(db, "c", v1alpha1.ReplicaReady)
	withReplicaStatus(db, "d", v1alpha1.ReplicaReady)
	withReplicaStatus(db, "e", v1alpha1.ReplicaCopying)
	db.Spec.Replicas[3].Storage.Bucket = "dbs-d2" // changed after its copy: not read until copied again
	req := aCampaign().request(0, 0)
	req.Database = db
	s := NewPartitionSpec(req)

	i := slices.Index(s.Engine.Argv(), "--database-replica")
	if i < 0 {
		t.Fatalf("command %q: no --database-replica", s.Engine.Argv())
	}
	want := []string{"--database-replica", "s3://dbs-a/copies/ns/sprot", "--database-replica", "s3://dbs-c/copies/ns/sprot"}
	if got := s.Engine.Argv()[i:]; !slices.Equal(got, want) {
		t.Errorf("replica flags %q, want %q", got, want)
	}

	env := envOf(t, s.Env)
	if e := env["BLASTFLEET_REPLICA1_AWS_ACCESS_KEY_ID"]; e.ValueFrom == nil || e.ValueFrom.SecretKeyRef.Name != "a-creds" || e.Value != "" {
		t.Errorf("replica 1 keys %+v, want a reference to Secret a-creds", e)
	}
	expectEnv(t, env, map[string]string{
		"BLASTFLEET_REPLICA1_AWS_ENDPOINT_URL": "http://far:9000",
		"BLASTFLEET_REPLICA1_AWS_REGION":       "eu-west-1",
		"BLASTFLEET_REPLICA2_AWS_ENDPOINT_URL": "http://far:9000",
		"BLASTFLEET_REPLICA2_S3_CREDENTIALS":   "identity",
	})
	expectNoEnv(t, env, "BLASTFLEET_REPLICA3_", "two replicas are Ready")

	// The launcher forwards them to every rank by name.
	obj, err := mpijob.Executor{}.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	launcher := obj.(*kubeflow.MPIJob).Spec.MPIReplicaSpecs[kubeflow.MPIReplicaTypeLauncher].Template.Spec.Containers[0]
	if args := strings.Join(launcher.Args, " "); !strings.Contains(args, "-x BLASTFLEET_REPLICA2_AWS_ENDPOINT_URL") ||
		!strings.HasSuffix(args, "--database-replica s3://dbs-c/copies/ns/sprot") {
		t.Errorf("mpirun %s: want the replica variables forwarded and the flags passed", args)
	}
}

// Without Ready replicas, nothing is added.
func TestPartitionSpecNoReplicas(t *testing.T) {
	db := aReadyDatabase(aReplica("a", "dbs-a", "a-creds"))
	withReplicaStatus(db, "a", v1alpha1.ReplicaPending)
	req := aCampaign().request(0, 0)
	req.Database = db
	s := NewPartitionSpec(req)
	if slices.Contains(s.Engine.Argv(), "--database-replica") {
		t.Errorf("command %q passes a replica that is not Ready", s.Engine.Argv())
	}
	expectNoEnv(t, envOf(t, s.Env), "BLASTFLEET_REPLICA", "no replica is Ready")
}
