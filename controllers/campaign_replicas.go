package controllers

import "github.com/blastfleet/blastfleet/api/v1alpha1"

// readyReplicas are the database's replicas a campaign's engine reads, in
// spec order: those whose copy of the current build succeeded for the
// store the spec names now (a replica changed since is not read until
// copied again). A replica that is not Ready is never passed, so a
// failed or unfinished copy cannot be read.
func readyReplicas(db *v1alpha1.BlastDatabase) []v1alpha1.DatabaseReplica {
	if db == nil {
		return nil
	}
	status := map[string]v1alpha1.ReplicaStatus{}
	for _, s := range db.Status.Replicas {
		status[s.Name] = s
	}
	var out []v1alpha1.DatabaseReplica
	for _, r := range db.Spec.Replicas {
		s, ok := status[r.Name]
		if ok && s.State == v1alpha1.ReplicaReady && s.Job == ReplicaJobName(db.Name, r.Name, replicaHash(db, r)) {
			out = append(out, r)
		}
	}
	return out
}

// addReplicas gives the engine the database's Ready replicas: a
// --database-replica flag each, and the n-th one's store as the
// BLASTFLEET_REPLICA<n>_AWS_* variables (n counting the flags from 1),
// the way the database's own store reaches the pods.
func (ps *podStorage) addReplicas(db *v1alpha1.BlastDatabase) (flags []string) {
	for i, r := range readyReplicas(db) {
		flags = append(flags, "--database-replica", replicaLocation(db, r))
		ps.add(replicaRole(i+1), r.Storage)
	}
	return flags
}
