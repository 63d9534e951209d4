package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// GroupVersion and Kind are what a configuration file must declare.
const (
	GroupVersion = "config.blastfleet.io/v1alpha1"
	Kind         = "Configuration"
)

// Configuration is blastfleet-manager's configuration. Each field's
// default is Default()'s; docs/operator.md describes them.
type Configuration struct {
	metav1.TypeMeta `json:",inline"`

	// WorkerImage runs sharding, planning and partitions when a resource
	// names none; it is always allowed by the policy.
	WorkerImage string `json:"workerImage"`
	// Namespace: watch only this namespace ("": all).
	Namespace string `json:"namespace"`
	// NamespaceSelector: without Namespace, the label selector of the
	// namespaces reconciled ("": all).
	NamespaceSelector string `json:"namespaceSelector"`
	// Site is this cluster's name in campaigns' ledgers.
	Site string `json:"site"`
	// LedgerPollInterval is how often a running campaign's ledger is read.
	LedgerPollInterval metav1.Duration `json:"ledgerPollInterval"`
	// SummaryMaxAge is how old a campaign's summary.json may be for a poll
	// to read it instead of listing every chunk.
	SummaryMaxAge metav1.Duration `json:"summaryMaxAge"`
	// PartitionTTL is how long finished MPIJobs are kept.
	PartitionTTL metav1.Duration `json:"partitionTTL"`
	// PartitionWindDown is how long a finished campaign's running
	// partitions get to exit on their own before they are deleted.
	PartitionWindDown metav1.Duration `json:"partitionWindDown"`
	// PartitionNetworkPolicy gives each campaign a NetworkPolicy that lets
	// into its pods only its own pods' traffic and metrics scrapes.
	PartitionNetworkPolicy bool `json:"partitionNetworkPolicy"`
	// Burst is how deadline campaigns change their partition count.
	Burst Burst `json:"burst"`
	// Bounds are what one tenant can cost the operator.
	Bounds Bounds `json:"bounds"`
	// ClientConnection limits the operator's requests to the API server.
	ClientConnection ClientConnection `json:"clientConnection"`
	// LeaderElection makes one of several replicas reconcile.
	LeaderElection LeaderElection `json:"leaderElection"`
	// Metrics is where the metrics endpoint listens.
	Metrics Metrics `json:"metrics"`
	// Health is where the liveness and readiness probes listen.
	Health Health `json:"health"`
	// Policy is what campaigns and databases may ask for
	// (docs/security.md).
	Policy Policy `json:"policy"`
	// CABundle is a PEM file of authorities trusted for every store
	// beside the system's.
	CABundle string `json:"caBundle"`
	// STSEndpoint is where web identity tokens are exchanged ("": AWS STS
	// of the store's region).
	STSEndpoint string `json:"stsEndpoint"`
	// DefaultStore is the object store of campaigns and databases that
	// name no endpoint.
	DefaultStore DefaultStore `json:"defaultStore"`
}

// Burst is the deadline burst's pacing.
type Burst struct {
	// Interval is the least time between two changes of a campaign's
	// partition count.
	Interval metav1.Duration `json:"interval"`
	// Window is the least time a site's rate is measured over before the
	// partitions follow it.
	Window metav1.Duration `json:"window"`
	// Margin is the share of the time left by which the sites must finish
	// early before partitions are removed, in [0, 1).
	Margin float64 `json:"margin"`
}

// Bounds bound the operator's work on tenants' stores.
type Bounds struct {
	// MaxConcurrentReconciles campaigns (and, apart, databases) are
	// reconciled at once.
	MaxConcurrentReconciles int `json:"maxConcurrentReconciles"`
	// StoreRequestTimeout is each store request's deadline.
	StoreRequestTimeout metav1.Duration `json:"storeRequestTimeout"`
	// ReconcileTimeout is the most one reconcile may spend.
	ReconcileTimeout metav1.Duration `json:"reconcileTimeout"`
	// AssembleTimeout is the most the Job assembling a result may run.
	AssembleTimeout metav1.Duration `json:"assembleTimeout"`
	// MaxObjectBytes is the largest object the operator reads whole.
	MaxObjectBytes int64 `json:"maxObjectBytes"`
}

// ClientConnection is the client-side limit on API server requests.
type ClientConnection struct {
	// QPS is the steady request rate.
	QPS float64 `json:"qps"`
	// Burst is how many requests may go above QPS at once.
	Burst int `json:"burst"`
}

// LeaderElection configures the Lease that elects the active replica.
type LeaderElection struct {
	// LeaderElect turns election on (off: every replica reconciles, for
	// one operator run by hand).
	LeaderElect bool `json:"leaderElect"`
	// ResourceName is the Lease's name: one per release.
	ResourceName string `json:"resourceName"`
	// ResourceNamespace is the Lease's namespace ("": the pod's).
	ResourceNamespace string `json:"resourceNamespace"`
}

// Metrics is the metrics endpoint.
type Metrics struct {
	// BindAddress is host:port, or "0" for none.
	BindAddress string `json:"bindAddress"`
	// Secure serves HTTPS with Kubernetes authentication and
	// authorization; off serves plain HTTP (for a loopback address).
	Secure bool `json:"secure"`
}

// Health is the probes' endpoint.
type Health struct {
	// HealthProbeBindAddress is host:port of /healthz and /readyz.
	HealthProbeBindAddress string `json:"healthProbeBindAddress"`
	// PprofBindAddress is host:port of Go's /debug/pprof (heap, CPU and
	// goroutine profiles of the operator); "" or "0" serves none.
	PprofBindAddress string `json:"pprofBindAddress,omitempty"`
}

// Policy restricts what authors may ask for; an empty list allows
// anything (docs/security.md).
type Policy struct {
	AllowedImages           []string `json:"allowedImages"`
	AllowedPriorityClasses  []string `json:"allowedPriorityClasses"`
	AllowedNodeSelectors    []string `json:"allowedNodeSelectors"`
	AllowedTolerationKeys   []string `json:"allowedTolerationKeys"`
	AllowedEndpoints        []string `json:"allowedEndpoints"`
	AllowInternalEndpoints  bool     `json:"allowInternalEndpoints"`
	RequireCredentialsLabel bool     `json:"requireCredentialsLabel"`
	RequireCABundleLabel    bool     `json:"requireCABundleLabel"`
	AllowOperatorIdentity   bool     `json:"allowOperatorIdentity"`
	AllowedServiceAccounts  []string `json:"allowedServiceAccounts"`
}

// DefaultStore is where stores that name no endpoint are.
type DefaultStore struct {
	// Endpoint is the S3 API's URL (http(s)://host[:port]) of every
	// store that names none and is not anonymous; the policy allows it
	// whatever its lists say, the administrator having chosen it. Empty:
	// AWS S3. Anonymous stores naming no endpoint stay on AWS S3 (public
	// buckets such as NCBI's).
	Endpoint string `json:"endpoint"`
}
