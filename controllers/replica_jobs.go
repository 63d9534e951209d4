package controllers

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// replicaJob copies the database's current build from its storage to
// replica r with `blastfleet db replicate`, which checks every file it
// writes against the manifest's hashes. The copy reads the primary as
// the database role (BLASTFLEET_DATABASE_AWS_*) and writes the replica as
// the first replica role (BLASTFLEET_REPLICA1_AWS_*): a copy reaches one
// replica. A copy of files already there is cheap to retry, so the Job's
// backoff retries a failed pod.
func replicaJob(db *v1alpha1.BlastDatabase, r v1alpha1.DatabaseReplica, image string) *batchv1.Job {
	var st podStorage
	st.add(objstore.RoleDatabase, db.Spec.Storage)
	st.add(replicaRole(1), r.Storage)
	args := []string{"db", "replicate", "--from", db.Status.Location, "--to", replicaLocation(db, r)}
	job := databaseJobWith(db, ReplicaJobName(db.Name, r.Name, replicaHash(db, r)), componentReplica, image, args, st)
	job.Labels[LabelReplica] = r.Name // the pods' labels too: one map
	job.Spec.Template.Spec.Containers[0].Name = "replicate"
	return job
}

// replicaLocation is where replica r keeps the database: the same
// directory under its store as the database's under spec.storage.
func replicaLocation(db *v1alpha1.BlastDatabase, r v1alpha1.DatabaseReplica) string {
	return location(r.Storage, db.Namespace, db.Name)
}

// replicaHash names what a copy Job copies: the build and the replica's
// store (endpoint, bucket, prefix, credentials). A change to either is a
// new copy; the same spec applied again is not.
func replicaHash(db *v1alpha1.BlastDatabase, r v1alpha1.DatabaseReplica) string {
	b, err := json.Marshal(struct {
		Build   string                 `json:"build"`
		Storage v1alpha1.ObjectStorage `json:"storage"`
	}{db.Status.Build, r.Storage})
	if err != nil {
		panic(err) // plain strings and pointers to them always marshal
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:4])
}
