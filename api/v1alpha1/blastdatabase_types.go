package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DatabaseType is the kind of sequences a database holds.
// +kubebuilder:validation:Enum=nucl;prot
type DatabaseType string

const (
	DatabaseNucleotide DatabaseType = "nucl"
	DatabaseProtein    DatabaseType = "prot"
)

// SourceFormat is what a BlastDatabase's source names.
// +kubebuilder:validation:Enum=fasta;blastdb
type SourceFormat string

const (
	// SourceFASTA: source.key is a FASTA object (plain or .gz).
	SourceFASTA SourceFormat = "fasta"
	// SourceBlastDB: source.key is prefix/NAME of a prebuilt BLAST
	// database, as NCBI publishes them.
	SourceBlastDB SourceFormat = "blastdb"
)

// BlastDatabaseSpec says which FASTA or prebuilt BLAST database to shard,
// how, and where to.
// +kubebuilder:validation:XValidation:rule="!has(self.sourceFormat) || self.sourceFormat != 'blastdb' || has(self.shards.count)",message="a blastdb source is sharded along its volumes: set shards.count (targetSize is for FASTA sources)",fieldPath=".shards"
type BlastDatabaseSpec struct {
	// Source is the FASTA (or gzip-compressed FASTA, key ending in .gz)
	// object the database is built from, read with the storage's
	// endpoint and credentials; with sourceFormat blastdb, the prebuilt
	// BLAST database's prefix and name (blast/db/nt for the database nt
	// under blast/db/).
	Source ObjectReference `json:"source"`

	// SourceFormat says what source names: fasta (the default), a FASTA
	// object; blastdb, a prebuilt BLAST database as NCBI publishes it and
	// update_blastdb.pl leaves it (NAME.NN.tar.gz volumes with their .md5
	// files, or unpacked volume files, optionally NAME-<type>-metadata.json,
	// and taxdb.tar.gz or taxdb.btd/bti beside them). It is sharded along
	// its volumes, copied as they are: ids, titles, taxids, masks and
	// sequence order stay, shards.count is at most its volume count, and
	// the taxonomy columns and taxid filters of campaigns work as on the
	// original (docs/concepts.md).
	// +optional
	// +kubebuilder:default=fasta
	SourceFormat SourceFormat `json:"sourceFormat,omitempty"`

	// Type of the sequences: nucl or prot.
	Type DatabaseType `json:"type"`

	// Shards says how many shards to cut: a count, or a target size per
	// shard from which the count follows. Shards are balanced by letters.
	Shards Sharding `json:"shards"`

	// Storage is where the shards and the manifest are written: under
	// s3://<bucket>/<prefix>/<namespace>/<name>/.
	Storage ObjectStorage `json:"storage"`

	// Image is the worker image (BLAST+ and blastfleet) that builds the
	// shards. Defaults to the operator's --worker-image.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	Image string `json:"image,omitempty"`

	// Resources of each shard-building pod. A CPU or memory it neither
	// requests nor limits is requested at 250m and 256Mi, so the pods are
	// never BestEffort.
	// +optional
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`

	// Parallelism bounds how many shards are built at once. Defaults to
	// all of them.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1024
	Parallelism *int32 `json:"parallelism,omitempty"`

	// ServiceAccountName runs the shard-building pods as this service
	// account of the namespace, whose identity (IRSA, pod identity)
	// reaches a storage without a credentialsSecretRef. Empty: the
	// namespace's default. The operator's --allowed-service-accounts may
	// restrict it.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`
	ServiceAccountName string `json:"serviceAccountName,omitempty"`

	// Builder is what runs the build: job, an Indexed Job building a
	// shard per index then a Job writing the manifest; or argo, an Argo
	// Workflow (verify the source's checksum, a makeblastdb step per
	// shard fanned out, the manifest last), visible and retryable in
	// Argo's UI. Unset: argo when Argo Workflows was installed at the
	// operator's start, else job.
	// +optional
	// +kubebuilder:validation:Enum=job;argo
	Builder DatabaseBuilder `json:"builder,omitempty"`
}

// DatabaseBuilder is what runs a database's build.
type DatabaseBuilder string

const (
	BuilderJob  DatabaseBuilder = "job"
	BuilderArgo DatabaseBuilder = "argo"
)

// Sharding is a shard count or a target shard size: exactly one.
// +kubebuilder:validation:XValidation:rule="has(self.count) != has(self.targetSize)",message="set exactly one of count and targetSize"
// +kubebuilder:validation:XValidation:rule="!has(self.targetSize) || quantity(string(self.targetSize)).isGreaterThan(quantity('0'))",message="targetSize must be positive",fieldPath=".targetSize"
type Sharding struct {
	// Count of shards.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=4096
	Count *int32 `json:"count,omitempty"`

	// TargetSize is the source object's bytes per shard, for example
	// 1Gi: the count is the source's size (compressed, for a .gz source)
	// divided by it, rounded up, at most 4096.
	// +optional
	TargetSize *resource.Quantity `json:"targetSize,omitempty"`
}

// DatabasePhase is where a database is in its life.
// +kubebuilder:validation:Enum=Pending;Sharding;Ready;Failed
type DatabasePhase string

const (
	DatabasePending  DatabasePhase = "Pending"
	DatabaseSharding DatabasePhase = "Sharding"
	DatabaseReady    DatabasePhase = "Ready"
	DatabaseFailed   DatabasePhase = "Failed"
)

// BlastDatabaseStatus is what the operator observed.
type BlastDatabaseStatus struct {
	// Phase: Pending, Sharding, Ready or Failed.
	// +optional
	Phase DatabasePhase `json:"phase,omitempty"`

	// Conditions: Ready, Progressing, Failed.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// ObservedGeneration is the spec generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Sequences in the whole database.
	// +optional
	Sequences int64 `json:"sequences,omitempty"`

	// Letters in the whole database.
	// +optional
	Letters int64 `json:"letters,omitempty"`

	// Shards the database was cut into.
	// +optional
	Shards int32 `json:"shards,omitempty"`

	// Bytes of every file a worker searching the whole database caches
	// (the manifest's sizes): the shards' and the files they share.
	// Campaigns size their worker pods' memory from it.
	// +optional
	Bytes int64 `json:"bytes,omitempty"`

	// LargestShardBytes is the largest shard's files.
	// +optional
	LargestShardBytes int64 `json:"largestShardBytes,omitempty"`

	// CommonBytes is the files every shard's search reads beside its own
	// (a prebuilt database's LMDB indexes, the taxonomy database), which
	// a worker caches once: with the largest shard, the least its cache
	// can hold.
	// +optional
	CommonBytes int64 `json:"commonBytes,omitempty"`

	// ShardsBuilt counts the shards finished so far while sharding.
	// +optional
	ShardsBuilt int32 `json:"shardsBuilt,omitempty"`

	// Location of the sharded database, s3://bucket/prefix; its
	// manifest.json lists every shard file with its SHA-256.
	// +optional
	Location string `json:"location,omitempty"`

	// ManifestSHA256 is the SHA-256 of the current build's manifest: the one a
	// campaign planned now pins, and checks on every rank before searching.
	// +optional
	ManifestSHA256 string `json:"manifestSHA256,omitempty"`
	// Build is the folder under the location holding the current build
	// (builds/<id>); earlier builds stay for the campaigns planned on them.
	// +optional
	Build string `json:"build,omitempty"`

	// BlastVersion is the makeblastdb version that built the shards.
	// +optional
	BlastVersion string `json:"blastVersion,omitempty"`
}

// BlastDatabase is a FASTA sharded into object storage: BLAST databases
// built with makeblastdb from balanced subsets of the sequences, each
// with an alias file carrying the whole database's statistics, so a
// sharded search equals a search of the whole database.
//
// The spec is immutable once the database is Ready: create a new
// BlastDatabase to shard differently.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=bdb,categories=blastfleet
// +kubebuilder:printcolumn:name="Type",type=string,JSONPath=`.spec.type`
// +kubebuilder:printcolumn:name="Shards",type=integer,JSONPath=`.status.shards`
// +kubebuilder:printcolumn:name="Sequences",type=integer,JSONPath=`.status.sequences`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.phase) || oldSelf.status.phase != 'Ready' || self.spec == oldSelf.spec",message="spec is immutable once the database is Ready: create a new BlastDatabase to shard differently"
type BlastDatabase struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec   BlastDatabaseSpec   `json:"spec"`
	Status BlastDatabaseStatus `json:"status,omitempty"`
}

// BlastDatabaseList is a list of BlastDatabases.
// +kubebuilder:object:root=true
type BlastDatabaseList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []BlastDatabase `json:"items"`
}

func init() {
	SchemeBuilder.Register(&BlastDatabase{}, &BlastDatabaseList{})
}
