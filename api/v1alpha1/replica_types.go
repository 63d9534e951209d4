package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// MaxReplicas bounds spec.replicas: each replica is a full copy of the
// database, and the CEL rules comparing them pairwise stay cheap.
const MaxReplicas = 4

// DatabaseReplica is another store keeping a copy of the database's
// current build, which campaigns read beside spec.storage (and instead of
// it when it is slow). The operator fills it, once the build is Ready, by
// copying the build from spec.storage; a copy is checked against the
// manifest's hashes.
type DatabaseReplica struct {
	// Name identifies the replica in status.replicas, its copy Job
	// (<database>-replica-<name>-<hash>) and events: a DNS label of at most
	// 32 characters, unique among the replicas.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name"`

	// Storage is where the copy is written: under
	// s3://<bucket>/<prefix>/<namespace>/<name>/, as spec.storage. It must
	// be a location other than spec.storage's and every other replica's,
	// and not anonymous (the copy writes to it).
	// +kubebuilder:validation:XValidation:rule="!has(self.anonymous) || !self.anonymous",message="a replica is written by its copy: it cannot be anonymous",fieldPath=".anonymous"
	Storage ObjectStorage `json:"storage"`
}

// ReplicaState is where a replica's copy is.
// +kubebuilder:validation:Enum=Pending;Copying;Ready;Failed
type ReplicaState string

const (
	// ReplicaPending: waiting for the build to be Ready, or for access to
	// the replica's store (its Secret, the operator's policy).
	ReplicaPending ReplicaState = "Pending"
	// ReplicaCopying: the copy Job runs.
	ReplicaCopying ReplicaState = "Copying"
	// ReplicaReady: the replica holds the current build; campaigns
	// planned from now on read it.
	ReplicaReady ReplicaState = "Ready"
	// ReplicaFailed: the copy failed; campaigns do not read the replica.
	// The database stays Ready.
	ReplicaFailed ReplicaState = "Failed"
)

// ReplicaStatus is what the operator observed of one replica.
type ReplicaStatus struct {
	// Name of the replica in spec.replicas.
	Name string `json:"name"`

	// State: Pending, Copying, Ready or Failed.
	State ReplicaState `json:"state"`

	// Location of the copy, s3://bucket/prefix/namespace/name.
	// +optional
	Location string `json:"location,omitempty"`

	// Build is the build (status.build) the replica holds or is being
	// filled with.
	// +optional
	Build string `json:"build,omitempty"`

	// Bytes of the build the replica holds: the manifest's size of the
	// build once Ready (the copy checks every file against its hash).
	// +optional
	Bytes int64 `json:"bytes,omitempty"`

	// Job is the copy Job (blastfleet db replicate) that fills the
	// replica.
	// +optional
	Job string `json:"job,omitempty"`

	// Message says what the replica waits for, or why its copy failed.
	// +optional
	Message string `json:"message,omitempty"`

	// LastTransitionTime is when State last changed.
	// +optional
	LastTransitionTime *metav1.Time `json:"lastTransitionTime,omitempty"`
}
