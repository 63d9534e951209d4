package controllers

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers/executor"
)

// campaignBuilder makes SearchCampaigns for tests: a valid running
// campaign unless told otherwise.
type campaignBuilder struct{ c v1alpha1.SearchCampaign }

func aCampaign() *campaignBuilder {
	b := &campaignBuilder{}
	b.c.Name, b.c.Namespace, b.c.Generation = "camp", "ns", 3
	b.c.Spec.OutputStrategy = "merged"
	b.c.Spec.Output = v1alpha1.ObjectStorage{Bucket: "bucket", Endpoint: "http://minio:9000",
		CredentialsSecretRef: &v1alpha1.CredentialsSecretRef{Name: "creds"}}
	b.c.Spec.Partitions = v1alpha1.Partitions{Count: 2, Workers: 2, SlotsPerWorker: 1}
	b.c.Spec.RetryPolicy = v1alpha1.RetryPolicy{MaxPartitionRestarts: 3, BackoffSeconds: 10, MaxBackoffSeconds: 60}
	return b
}

func (b *campaignBuilder) partitions(count, workers, slots int32) *campaignBuilder {
	b.c.Spec.Partitions.Count, b.c.Spec.Partitions.Workers, b.c.Spec.Partitions.SlotsPerWorker = count, workers, slots
	return b
}

func (b *campaignBuilder) queue(name string) *campaignBuilder {
	b.c.Spec.QueueName = name
	return b
}

func (b *campaignBuilder) placement(priorityClass string, nodeSelector map[string]string, tolerations ...corev1.Toleration) *campaignBuilder {
	p := &b.c.Spec.Partitions
	p.PriorityClassName, p.NodeSelector, p.Tolerations = priorityClass, nodeSelector, tolerations
	return b
}

func (b *campaignBuilder) resources(r corev1.ResourceRequirements) *campaignBuilder {
	b.c.Spec.Partitions.Resources = r
	return b
}

// restarts sets the restart budget and backoff (seconds).
func (b *campaignBuilder) restarts(budget, backoff, maxBackoff int32) *campaignBuilder {
	b.c.Spec.RetryPolicy.MaxPartitionRestarts, b.c.Spec.RetryPolicy.BackoffSeconds, b.c.Spec.RetryPolicy.MaxBackoffSeconds = budget, backoff, maxBackoff
	return b
}

func (b *campaignBuilder) build() *v1alpha1.SearchCampaign { return b.c.DeepCopy() }

// request is partition index's request after restart replacements.
func (b *campaignBuilder) request(index, restart int) *PartitionRequest {
	return &PartitionRequest{Campaign: b.build(), Index: index, Restart: restart, Location: "s3://bucket/ns/camp", Image: "worker:test"}
}

// partitionBuilder makes observed partitions for the policies' tests:
// running unless told otherwise.
type partitionBuilder struct{ p partition }

func aPartition(index, restart int) *partitionBuilder {
	obj := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: PartitionName("camp", index, restart)}}
	return &partitionBuilder{partition{obj: obj, index: index, restart: restart, state: executor.State{Phase: executor.Running}}}
}

func (b *partitionBuilder) queued() *partitionBuilder {
	b.p.state = executor.State{Phase: executor.Queued, Reason: "Suspended"}
	return b
}

func (b *partitionBuilder) failed(at time.Time) *partitionBuilder {
	b.p.state = executor.State{Phase: executor.Failed, FinishedAt: at, Reason: "BackoffLimitExceeded", Message: "rank 3 exited 1"}
	return b
}

func (b *partitionBuilder) succeeded(at time.Time) *partitionBuilder {
	b.p.state = executor.State{Phase: executor.Succeeded, FinishedAt: at}
	return b
}

func (b *partitionBuilder) build() partition { return b.p }

func parts(bs ...*partitionBuilder) []partition {
	out := make([]partition, len(bs))
	for i, b := range bs {
		out[i] = b.build()
	}
	return out
}

// executors is a registry of es, for reconcilers under test.
func executors(es ...executor.Executor) executor.Registry {
	var r executor.Registry
	for _, e := range es {
		r.Register(e)
	}
	return r
}
