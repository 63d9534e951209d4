package v1alpha1

// ObjectStorage is a location in an S3-compatible object store (AWS S3,
// MinIO, Ceph RGW, ...) and how to authenticate to it.
// +kubebuilder:validation:XValidation:rule="!has(self.prefix) || !self.prefix.startsWith('/')",message="prefix must not start with '/'",fieldPath=".prefix"
type ObjectStorage struct {
	// Endpoint is the S3 API's URL, scheme included, for example
	// http://minio.minio.svc:9000: a scheme, a host and an optional port,
	// with no path, query or user information (credentials belong in the
	// Secret). The scheme decides TLS. Empty means AWS S3
	// (https://s3.amazonaws.com).
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
	// never as arguments, and never appear in this object.
	// +required
	CredentialsSecretRef *CredentialsSecretRef `json:"credentialsSecretRef"`
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
