package controllers

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/plan/search/fromapi"
)

// Labels on every object the operator creates.
const (
	LabelCampaign     = "blastfleet.io/campaign"
	LabelDatabase     = "blastfleet.io/database"
	LabelReplica      = "blastfleet.io/replica"
	LabelPartition    = "blastfleet.io/partition"
	LabelRestart      = "blastfleet.io/restart"
	LabelGeneration   = "blastfleet.io/generation"
	LabelComponent    = "app.kubernetes.io/component"
	LabelManagedBy    = "app.kubernetes.io/managed-by"
	LabelKueueQueue   = "kueue.x-k8s.io/queue-name"
	managedByValue    = "blastfleet"
	componentPlan     = "plan"
	componentAssemble = "assemble"
	componentPart     = "partition"
	componentShards   = "shards"
	componentFinish   = "manifest"
	componentReplica  = "replica"
	fieldDatabaseRef  = ".spec.databaseRef.name"
)

// PartitionName is partition index's MPIJob after restart replacements:
// <campaign>-p<index>-r<restart>. The CRD's CEL rule keeps its worker pods'
// names (<this>-worker-<n>) within 63 characters.
func PartitionName(campaign string, index, restart int) string {
	return fmt.Sprintf("%s-p%d-r%d", campaign, index, restart)
}

// NetworkPolicyName is the campaign's partitions' NetworkPolicy.
func NetworkPolicyName(campaign string) string { return truncName(campaign, "-partitions") }

// PlanJobName is the campaign's planning Job.
func PlanJobName(campaign string) string { return truncName(campaign, "-plan") }

// AssembleJobName is the Job assembling the campaign's result when no
// partition is left to.
func AssembleJobName(campaign string) string { return truncName(campaign, "-assemble") }

// ShardJobName and ManifestJobName are a database's sharding Jobs.
func ShardJobName(db string) string    { return truncName(db, "-shards") }
func ManifestJobName(db string) string { return truncName(db, "-manifest") }

// ReplicaJobName is the Job copying a database's build to its replica:
// <db>-replica-<replica>-<hash>, the hash of what it copies (the build
// and the replica's store), so a changed replica gets a Job of its own.
func ReplicaJobName(db, replica, hash string) string {
	return truncName(db, "-replica-"+replica+"-"+hash)
}

// truncName keeps name+suffix a valid label value (63 characters): Jobs
// label their pods with their own name.
func truncName(name, suffix string) string {
	if len(name)+len(suffix) > 63 {
		name = strings.TrimRight(name[:63-len(suffix)], "-.")
	}
	return name + suffix
}

// location is s3://bucket/prefix/namespace/name: each object its own
// directory under the storage's prefix.
func location(st v1alpha1.ObjectStorage, namespace, name string) string {
	return "s3://" + st.Bucket + "/" + strings.TrimPrefix(path.Join(st.Prefix, namespace, name), "/")
}

// queriesURL is the campaign's query object: in queries.storage's bucket
// under its prefix when the queries have their own store, else in the
// output's (or queries.bucket).
func queriesURL(c *v1alpha1.SearchCampaign) string {
	q := c.Spec.Queries
	if q.Storage == nil {
		return fromapi.ObjectURL(c.Spec.Output, q.ObjectReference)
	}
	key := strings.TrimPrefix(q.Key, "/")
	if p := strings.Trim(q.Storage.Prefix, "/"); p != "" {
		key = p + "/" + key
	}
	return "s3://" + q.Storage.Bucket + "/" + key
}

// partitionOf reads a partition's index and restart from its labels.
func partitionOf(labels map[string]string) (index, restart int, ok bool) {
	i, err1 := strconv.Atoi(labels[LabelPartition])
	r, err2 := strconv.Atoi(labels[LabelRestart])
	return i, r, err1 == nil && err2 == nil && i >= 0 && r >= 0
}

// partitionLabels are a partition's labels: campaign, index, restart and
// the campaign generation it was created for; the Kueue queue when set.
func partitionLabels(c *v1alpha1.SearchCampaign, index, restart int) map[string]string {
	l := map[string]string{
		LabelCampaign:   c.Name,
		LabelPartition:  strconv.Itoa(index),
		LabelRestart:    strconv.Itoa(restart),
		LabelGeneration: strconv.FormatInt(c.Generation, 10),
		LabelComponent:  componentPart,
		LabelManagedBy:  managedByValue,
	}
	if c.Spec.QueueName != "" {
		l[LabelKueueQueue] = c.Spec.QueueName
	}
	return l
}

// splitLocation splits s3://bucket/prefix.
func splitLocation(loc string) (bucket, prefix string) {
	rest := strings.TrimPrefix(loc, "s3://")
	bucket, prefix, _ = strings.Cut(rest, "/")
	return bucket, prefix
}
