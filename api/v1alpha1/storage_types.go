package v1alpha1

// ObjectStorage is a location in an S3-compatible object store (AWS S3,
// MinIO, Ceph RGW, ...) and how to authenticate to it.
// +kubebuilder:validation:XValidation:rule="!has(self.prefix) || !self.prefix.startsWith('/')",message="prefix must not start with '/'",fieldPath=".prefix"
// +kubebuilder:validation:XValidation:rule="!(has(self.anonymous) && self.anonymous && has(self.credentialsSecretRef))",message="anonymous and credentialsSecretRef exclude each other: anonymous requests carry no credentials",fieldPath=".anonymous"
type ObjectStorage struct {
	// Endpoint is the S3 API's URL, scheme included, for example
	// http://minio.minio.svc:9000: a scheme, a host and an optional port,
	// with no path, query or user information (credentials belong in the
	// Secret). The scheme decides TLS. Empty means the operator's default
	// store (its configuration's defaultStore.endpoint) when it has one and
	// the store is not anonymous, else AWS S3 (https://s3.amazonaws.com).
	// +optional
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:Pattern=`^https?://([A-Za-z0-9]([-A-Za-z0-9.]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?/?$`
	Endpoint string `json:"endpoint,omitempty"`

	// Region of the bucket.
	// +optional
	// +kubebuilder:default=us-east-1
	// +kubebuilder:validation:MaxLength=64
	Region string `json:"region,omitempty"`

	// Bucket is the bucket's name (S3 naming rules: 3 to 63 lower case
	// letters, digits, '-' and '.', dot-separated labels that start and
	// end with a letter or digit).
	// +kubebuilder:validation:MinLength=3
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Bucket string `json:"bucket"`

	// Prefix is the key prefix inside the bucket under which blastfleet
	// writes, for example databases or campaigns; each object gets its
	// own directory <prefix>/<namespace>/<name>/. No leading slash.
	// Segments between slashes may not be empty, "." or "..": the rules
	// of the object stores' own key check, so a bad prefix is refused here
	// rather than found when the campaign first opens its storage.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:Pattern=`^[^\x00-\x1f\x7f\\]*$`
	// +kubebuilder:validation:XValidation:rule="!self.contains('//')",message="prefix must not have an empty segment ('//')"
	// +kubebuilder:validation:XValidation:rule="!self.matches('(^|/)[.][.]?(/|$)')",message="prefix must not have a '.' or '..' segment"
	Prefix string `json:"prefix,omitempty"`

	// CredentialsSecretRef names a Secret in the object's namespace that
	// holds the access key. Its values reach pods as environment variables,
	// never as arguments, and never appear in this object. Unset (and not
	// anonymous): the pods' own identity, through the standard chain (web
	// identity such as IRSA from the service account,
	// spec.partitions.serviceAccountName; EKS Pod Identity or a container
	// credentials endpoint; the node's instance metadata), and the
	// operator's own identity where the operator reads the store, if its
	// policy allows (--allow-operator-identity, docs/security.md).
	// +optional
	CredentialsSecretRef *CredentialsSecretRef `json:"credentialsSecretRef,omitempty"`

	// Anonymous sends unsigned requests, for a public bucket (NCBI's, for
	// example): reading works, writing is refused by the store. Not with
	// credentialsSecretRef.
	// +optional
	Anonymous bool `json:"anonymous,omitempty"`

	// CABundle is a ConfigMap key holding the PEM certificate authorities
	// that sign a private endpoint's certificate, trusted beside the
	// system's by the pods (mounted read-only) and by the operator. The
	// ConfigMap must carry the label blastfleet.io/ca-bundle=true.
	// +optional
	CABundle *ConfigMapKeyRef `json:"caBundle,omitempty"`
}

// ConfigMapKeyRef is a key of a ConfigMap in the object's namespace.
type ConfigMapKeyRef struct {
	// Name of the ConfigMap.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// Key in the ConfigMap's data.
	// +optional
	// +kubebuilder:default=ca.crt
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	Key string `json:"key,omitempty"`
}

// CredentialsSecretRef names a Secret and the keys in it that hold S3
// credentials.
type CredentialsSecretRef struct {
	// Name of the Secret, in the same namespace.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// AccessKeyIDKey is the key holding the access key id.
	// +optional
	// +kubebuilder:default=AWS_ACCESS_KEY_ID
	// +kubebuilder:validation:MaxLength=253
	AccessKeyIDKey string `json:"accessKeyIDKey,omitempty"`

	// SecretAccessKeyKey is the key holding the secret access key.
	// +optional
	// +kubebuilder:default=AWS_SECRET_ACCESS_KEY
	// +kubebuilder:validation:MaxLength=253
	SecretAccessKeyKey string `json:"secretAccessKeyKey,omitempty"`
}

// ObjectReference is an object in a bucket.
type ObjectReference struct {
	// Bucket holding the object; defaults to the storage's bucket.
	// +optional
	// +kubebuilder:validation:MinLength=3
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Bucket string `json:"bucket,omitempty"`

	// Key of the object, for example inputs/queries.fa.gz. A key ending in
	// .gz is read as gzip. No leading or trailing slash, and no empty, "."
	// or ".." segment (the object stores' own key check).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:Pattern=`^[^\x00-\x1f\x7f\\]*$`
	// +kubebuilder:validation:XValidation:rule="!self.startsWith('/') && !self.endsWith('/')",message="key must not start or end with '/'"
	// +kubebuilder:validation:XValidation:rule="!self.contains('//')",message="key must not have an empty segment ('//')"
	// +kubebuilder:validation:XValidation:rule="!self.matches('(^|/)[.][.]?(/|$)')",message="key must not have a '.' or '..' segment"
	Key string `json:"key"`
}

// Condition types shared by the API's objects.
const (
	// ConditionReady: the object can be used (a database is sharded).
	ConditionReady = "Ready"
	// ConditionProgressing: work is under way.
	ConditionProgressing = "Progressing"
	// ConditionComplete: a campaign's result is assembled.
	ConditionComplete = "Complete"
	// ConditionFailed: the object will make no more progress.
	ConditionFailed = "Failed"
	// ConditionDegraded: work goes on with less than was asked for.
	ConditionDegraded = "Degraded"
	// ConditionOnSchedule: a campaign with spec.deadline is expected to
	// meet it (Unknown until a rate is measured).
	ConditionOnSchedule = "OnSchedule"
)

// CredentialsLabel is the label a Secret carries, with the value "true",
// to opt in to being named by a credentialsSecretRef: unless the operator
// runs with --require-credentials-label=false, it refuses Secrets without
// it (docs/security.md).
const CredentialsLabel = "blastfleet.io/credentials"

// CABundleLabel is the label a ConfigMap carries, with the value "true",
// to opt in to being named by a caBundle and so mounted into the pods of
// whoever names it: unless the operator runs with
// --require-ca-bundle-label=false, it refuses ConfigMaps without it.
const CABundleLabel = "blastfleet.io/ca-bundle"
