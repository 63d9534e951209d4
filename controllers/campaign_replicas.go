package controllers

import "github.com/blastfleet/blastfleet/api/v1alpha1"

// readyReplicas are the database's replicas a campaign's engine reads, in
// spec order (replicaReady).
func readyReplicas(db *v1alpha1.BlastDatabase) []v1alpha1.DatabaseReplica {
	if db == nil {
		return nil
	}
	var out []v1alpha1.DatabaseReplica
	for _, r := range db.Spec.Replicas {
		if replicaReady(db, r) {
			out = append(out, r)
		}
	}
	return out
}

// replicaReady says whether replica r's copy of the current build
// succeeded for the store the spec names now (a replica changed since is
// not read until copied again). A replica that is not Ready is never
// passed, so a failed or unfinished copy cannot be read.
func replicaReady(db *v1alpha1.BlastDatabase, r v1alpha1.DatabaseReplica) bool {
	for _, s := range db.Status.Replicas {
		if s.Name == r.Name {
			return s.State == v1alpha1.ReplicaReady && s.Job == ReplicaJobName(db.Name, r.Name, replicaHash(db, r))
		}
	}
	return false
}

// addReplicas gives the engine the database's Ready replicas: their
// locations (a --database-replica flag each), and the n-th one's store as
// the BLASTFLEET_REPLICA<n>_AWS_* variables (n counting the locations
// from 1), the way the database's own store reaches the pods.
func (ps *podStorage) addReplicas(db *v1alpha1.BlastDatabase) (locations []string) {
	for i, r := range readyReplicas(db) {
		locations = append(locations, replicaLocation(db, r))
		ps.add(replicaRole(i+1), r.Storage)
	}
	return locations
}
