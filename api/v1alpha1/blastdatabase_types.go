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
//
// Replicas' locations are compared by endpoint (absent: AWS S3's), bucket
// and prefix, each of endpoint and prefix with one trailing slash, so a
// trailing slash does not make another place of the same one. (No empty
// string literals: gofmt rewrites two quotes in a doc comment.)
// +kubebuilder:validation:XValidation:rule="!has(self.replicas) || self.replicas.all(r, (has(r.storage.endpoint) ? (r.storage.endpoint + '/').replace('//', '/') : 'https:/s3.amazonaws.com/') + ' ' + r.storage.bucket + '/' + (has(r.storage.prefix) ? (r.storage.prefix + '/').replace('//', '/') : '/') != (has(self.storage.endpoint) ? (self.storage.endpoint + '/').replace('//', '/') : 'https:/s3.amazonaws.com/') + ' ' + self.storage.bucket + '/' + (has(self.storage.prefix) ? (self.storage.prefix + '/').replace('//', '/') : '/'))",message="a replica must be at a location other than spec.storage (endpoint, bucket and prefix)",fieldPath=".replicas"
// +kubebuilder:validation:XValidation:rule="!has(self.replicas) || self.replicas.all(a, self.replicas.exists_one(b, (has(a.storage.endpoint) ? (a.storage.endpoint + '/').replace('//', '/') : 'https:/s3.amazonaws.com/') + ' ' + a.storage.bucket + '/' + (has(a.storage.prefix) ? (a.storage.prefix + '/').replace('//', '/') : '/') == (has(b.storage.endpoint) ? (b.storage.endpoint + '/').replace('//', '/') : 'https:/s3.amazonaws.com/') + ' ' + b.storage.bucket + '/' + (has(b.storage.prefix) ? (b.storage.prefix + '/').replace('//', '/') : '/')))",message="replicas must be at distinct locations (endpoint, bucket and prefix)",fieldPath=".replicas"
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
	// sequence order stay (a database of fewer volumes than shards.count
	// is first rebuilt in smaller volumes, keeping them too), and
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

	// Replicas are other stores keeping a copy of the build (at most 4),
	// which campaigns read beside storage and instead of it when it is a
	// hot spot. Each is filled once the build is Ready, by a Job copying
	// it from storage. Replicas may be added or removed at any time, also
	// once the database is Ready: an added replica is copied, a removed
	// one is no longer read (its objects stay).
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=4
	Replicas []DatabaseReplica `json:"replicas,omitempty"`

	// Image is the worker image (BLAST+ and blastfleet) that builds the
	// shards. Defaults to the operator's --worker-image.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	Image string `json:"image,omitempty"`

	// Resources of each shard-building pod. A CPU or memory it neither
	// requests nor limits is requested at 250m and 256Mi, so the pods are
	// never BestEffort.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!has(self.requests) || ((!('cpu' in self.requests) || !quantity(string(self.requests['cpu'])).isLessThan(quantity('0'))) && (!('memory' in self.requests) || !quantity(string(self.requests['memory'])).isLessThan(quantity('0'))) && (!('ephemeral-storage' in self.requests) || !quantity(string(self.requests['ephemeral-storage'])).isLessThan(quantity('0'))))",message="resources.requests must not be negative",fieldPath=".requests"
	// +kubebuilder:validation:XValidation:rule="!has(self.limits) || ((!('cpu' in self.limits) || !quantity(string(self.limits['cpu'])).isLessThan(quantity('0'))) && (!('memory' in self.limits) || !quantity(string(self.limits['memory'])).isLessThan(quantity('0'))) && (!('ephemeral-storage' in self.limits) || !quantity(string(self.limits['ephemeral-storage'])).isLessThan(quantity('0'))))",message="resources.limits must not be negative",fieldPath=".limits"
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

	// Replicas is each of spec.replicas' state, in spec order.
	// +optional
	// +listType=map
	// +listMapKey=name
	Replicas []ReplicaStatus `json:"replicas,omitempty"`

	// ReplicasReady is the replicas holding the build out of those named,
	// for example 1/2; empty without replicas.
	// +optional
	ReplicasReady string `json:"replicasReady,omitempty"`
}

// BlastDatabase is a FASTA sharded into object storage: BLAST databases
// built with makeblastdb from balanced subsets of the sequences, each
// with an alias file carrying the whole database's statistics, so a
// sharded search equals a search of the whole database.
//
// The spec is immutable once the database is Ready, but for its
// replicas: create a new BlastDatabase to shard differently. The rule
// names every other field (a rule cannot compare the spec without one of
// its fields); TestDatabaseImmutabilityRuleNamesEveryField keeps it
// complete. Resources are compared by their parts, so that resources: {}
// (which typed Go clients send) equals none.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=bdb,categories=blastfleet
// +kubebuilder:printcolumn:name="Type",type=string,JSONPath=`.spec.type`
// +kubebuilder:printcolumn:name="Shards",type=integer,JSONPath=`.status.shards`
// +kubebuilder:printcolumn:name="Sequences",type=integer,JSONPath=`.status.sequences`
// +kubebuilder:printcolumn:name="Replicas",type=string,JSONPath=`.status.replicasReady`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.phase) || oldSelf.status.phase != 'Ready' || (self.spec.source == oldSelf.spec.source && has(self.spec.sourceFormat) == has(oldSelf.spec.sourceFormat) && (!has(self.spec.sourceFormat) || self.spec.sourceFormat == oldSelf.spec.sourceFormat) && self.spec.type == oldSelf.spec.type && self.spec.shards == oldSelf.spec.shards && self.spec.storage == oldSelf.spec.storage && has(self.spec.image) == has(oldSelf.spec.image) && (!has(self.spec.image) || self.spec.image == oldSelf.spec.image) && (has(self.spec.resources) && has(self.spec.resources.requests)) == (has(oldSelf.spec.resources) && has(oldSelf.spec.resources.requests)) && (!(has(self.spec.resources) && has(self.spec.resources.requests)) || self.spec.resources.requests == oldSelf.spec.resources.requests) && (has(self.spec.resources) && has(self.spec.resources.limits)) == (has(oldSelf.spec.resources) && has(oldSelf.spec.resources.limits)) && (!(has(self.spec.resources) && has(self.spec.resources.limits)) || self.spec.resources.limits == oldSelf.spec.resources.limits) && (has(self.spec.resources) && has(self.spec.resources.claims)) == (has(oldSelf.spec.resources) && has(oldSelf.spec.resources.claims)) && (!(has(self.spec.resources) && has(self.spec.resources.claims)) || self.spec.resources.claims == oldSelf.spec.resources.claims) && has(self.spec.parallelism) == has(oldSelf.spec.parallelism) && (!has(self.spec.parallelism) || self.spec.parallelism == oldSelf.spec.parallelism) && has(self.spec.serviceAccountName) == has(oldSelf.spec.serviceAccountName) && (!has(self.spec.serviceAccountName) || self.spec.serviceAccountName == oldSelf.spec.serviceAccountName) && has(self.spec.builder) == has(oldSelf.spec.builder) && (!has(self.spec.builder) || self.spec.builder == oldSelf.spec.builder))",message="spec is immutable once the database is Ready, but for spec.replicas: create a new BlastDatabase to shard differently"
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
