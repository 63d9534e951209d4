package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Partitions is how many MPIJobs (or Argo Workflows) run a campaign and
// their shape. Every slot searches: an MPIJob partition runs
// workers x slotsPerWorker searching ranks plus one more, rank 0, the
// engine's master (it schedules and mostly waits), oversubscribed on the
// first worker pod; a Workflow runs workers steps of slotsPerWorker
// searching workers each, the master beside them. So one worker of one
// slot is a partition (the minimums below are the only bound needed).
// +kubebuilder:validation:XValidation:rule="!has(self.min) || !has(self.max) || self.min <= self.max",message="partitions.min must not be above partitions.max"
// +kubebuilder:validation:XValidation:rule="!has(self.resources) || !has(self.resources.requests) || !has(self.resources.limits) || !('cpu' in self.resources.requests) || !('cpu' in self.resources.limits) || quantity(string(self.resources.requests['cpu'])).compareTo(quantity(string(self.resources.limits['cpu']))) <= 0",message="partitions.resources.requests.cpu must not be above partitions.resources.limits.cpu",fieldPath=".resources.requests"
// +kubebuilder:validation:XValidation:rule="!has(self.resources) || !has(self.resources.requests) || !has(self.resources.limits) || !('memory' in self.resources.requests) || !('memory' in self.resources.limits) || quantity(string(self.resources.requests['memory'])).compareTo(quantity(string(self.resources.limits['memory']))) <= 0",message="partitions.resources.requests.memory must not be above partitions.resources.limits.memory",fieldPath=".resources.requests"
type Partitions struct {
	// Count of partitions running at once. May change while the campaign
	// runs: partitions are added or removed, and the ledger hands their
	// chunks to the others.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=256
	Count int32 `json:"count"`

	// Min is the fewest partitions a campaign with spec.deadline runs
	// (default 1): the burst never removes partitions below it. Ignored
	// without a deadline.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=256
	Min *int32 `json:"min,omitempty"`

	// Max is the most partitions a campaign with spec.deadline runs: the
	// burst adds partitions up to it when the campaign would miss its
	// deadline. Required with a deadline; ignored without.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=256
	Max *int32 `json:"max,omitempty"`

	// Workers is the number of worker pods per partition.
	// +optional
	// +kubebuilder:default=2
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=4096
	Workers int32 `json:"workers"`

	// SlotsPerWorker is the searching MPI ranks per worker pod (one BLAST
	// process each); the pod's CPU request defaults to it. The master
	// rank is one more, on the first worker pod, mostly waiting.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=256
	SlotsPerWorker int32 `json:"slotsPerWorker"`

	// Image is the worker image (BLAST+, OpenMPI, blastfleet-engine).
	// Defaults to the operator's --worker-image.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	Image string `json:"image,omitempty"`

	// Resources of each worker pod. What it leaves out is defaulted, so a
	// worker pod is never BestEffort: a CPU request of slotsPerWorker (no
	// CPU limit), and memory (request and limit) for what every slot
	// caches, the whole database (status.bytes of the BlastDatabase),
	// plus 512Mi of BLAST's working memory per slot and 256Mi for the
	// master. A memory given here bounds each slot's shard cache instead
	// (the engine's --cache-bytes): the database is searched in groups of
	// shards that fit it (never less than the largest shard; a
	// MemoryBelowShards warning event says when memory cannot hold it,
	// and how much would). Shards are cached on
	// the pod's scratch emptyDir: ask for ephemeral-storage where nodes
	// need it. A memory request without a limit gets the request as limit.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!has(self.requests) || ((!('cpu' in self.requests) || !quantity(string(self.requests['cpu'])).isLessThan(quantity('0'))) && (!('memory' in self.requests) || !quantity(string(self.requests['memory'])).isLessThan(quantity('0'))) && (!('ephemeral-storage' in self.requests) || !quantity(string(self.requests['ephemeral-storage'])).isLessThan(quantity('0'))))",message="resources.requests must not be negative",fieldPath=".requests"
	// +kubebuilder:validation:XValidation:rule="!has(self.limits) || ((!('cpu' in self.limits) || !quantity(string(self.limits['cpu'])).isLessThan(quantity('0'))) && (!('memory' in self.limits) || !quantity(string(self.limits['memory'])).isLessThan(quantity('0'))) && (!('ephemeral-storage' in self.limits) || !quantity(string(self.limits['ephemeral-storage'])).isLessThan(quantity('0'))))",message="resources.limits must not be negative",fieldPath=".limits"
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`

	// ScratchSize bounds each worker pod's scratch emptyDir (its shard
	// cache and BLAST's working files); the kubelet evicts a pod that
	// writes more. Unset: each slot's shard cache (the whole database, or
	// the cache the memory bounds) plus 1Gi per slot, when the database's
	// size is known; else no bound. 0: no bound.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!quantity(string(self)).isLessThan(quantity('0'))",message="scratchSize must not be negative"
	ScratchSize *resource.Quantity `json:"scratchSize,omitempty"`

	// NodeSelector for the partition's pods.
	// +optional
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`

	// Tolerations for the partition's pods.
	// +optional
	// +listType=atomic
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`

	// PriorityClassName for the partition's pods.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	PriorityClassName string `json:"priorityClassName,omitempty"`

	// ServiceAccountName runs the partitions' and the planning Job's pods
	// as this service account of the campaign's namespace, for example
	// one annotated for IRSA (eks.amazonaws.com/role-arn) or bound by EKS
	// Pod Identity, whose identity reaches stores without a
	// credentialsSecretRef. Empty: the namespace's default. The
	// operator's policy may restrict it (--allowed-service-accounts).
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`
	ServiceAccountName string `json:"serviceAccountName,omitempty"`
}
