package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
)

// Partitions is how many MPIJobs (or Argo Workflows) run a campaign and
// their shape. An MPIJob partition runs workers x slotsPerWorker MPI
// ranks: rank 0 is the engine's master (it schedules), the others search
// (SearchCampaignSpec checks there are at least 2). A Workflow runs
// workers steps of slotsPerWorker searching workers each, the master
// beside them.
// +kubebuilder:validation:XValidation:rule="!has(self.min) || !has(self.max) || self.min <= self.max",message="partitions.min must not be above partitions.max"
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

	// SlotsPerWorker is the MPI ranks per worker pod (one BLAST process
	// each); size the pod's CPU request to it.
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

	// Resources of each worker pod. Shards are cached on the pod's disk,
	// so give it memory for the largest shard group and ephemeral storage.
	// +optional
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`

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
