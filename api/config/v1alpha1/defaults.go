package v1alpha1

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/blastfleet/blastfleet/internal/operator/burst"
)

// The defaults other packages fall back on for a zero setting (the
// controllers' tests build reconcilers without a configuration).
const (
	// DefaultWorkerImageRepository is the worker image's repository; the
	// manager tags it with its own version when WorkerImage is empty.
	DefaultWorkerImageRepository = "ghcr.io/blastfleet/worker"
	// OperatorNamespaceLabel marks a namespace as claimed by the release
	// that watches it alone.
	OperatorNamespaceLabel = "blastfleet.io/operator"
	// DefaultNamespaceSelector leaves namespaces a release of their own
	// claims to it.
	DefaultNamespaceSelector = "!" + OperatorNamespaceLabel
	// DefaultSite names this cluster's partitions in ledgers.
	DefaultSite = "cloud"
	// DefaultSummaryMaxAge: a running partition writes summary.json within
	// seconds of each chunk's end and every 30 s meanwhile, so one older
	// than this has no partition writing it.
	DefaultSummaryMaxAge = 2 * time.Minute
	// Bounds on the store work one tenant can cause. Concurrent reconciles:
	// a reconcile waits on the network, not on a core. A thousand campaigns
	// polled every 15 s need about 67 reconciles a second; 16 workers serve
	// that at up to 240 ms a reconcile, and a few tenants whose stores hang
	// until the reconcile timeout still leave the rest most of the workers.
	DefaultStoreRequestTimeout = 30 * time.Second
	DefaultReconcileTimeout    = 2 * time.Minute
	DefaultAssembleTimeout     = 10 * time.Minute
	DefaultMaxObjectBytes      = 16 << 20
	DefaultMaxConcurrent       = 16
)

// Default is the configuration of a manager given no file and no flag.
// WorkerImage is left empty: the manager's own version tags
// DefaultWorkerImageRepository.
func Default() Configuration {
	d := func(v time.Duration) metav1.Duration { return metav1.Duration{Duration: v} }
	return Configuration{
		TypeMeta:           metav1.TypeMeta{APIVersion: GroupVersion, Kind: Kind},
		NamespaceSelector:  DefaultNamespaceSelector,
		Site:               DefaultSite,
		LedgerPollInterval: d(15 * time.Second),
		SummaryMaxAge:      d(DefaultSummaryMaxAge),
		PartitionTTL:       d(time.Hour),
		PartitionWindDown:  d(time.Minute),
		// Enforced where the network plugin enforces NetworkPolicy.
		PartitionNetworkPolicy: true,
		Burst: Burst{Interval: d(burst.DefaultPolicy.MinInterval), Window: d(burst.DefaultPolicy.MinWindow),
			Margin: burst.DefaultPolicy.Margin},
		Bounds: Bounds{MaxConcurrentReconciles: DefaultMaxConcurrent, StoreRequestTimeout: d(DefaultStoreRequestTimeout),
			ReconcileTimeout: d(DefaultReconcileTimeout), AssembleTimeout: d(DefaultAssembleTimeout), MaxObjectBytes: DefaultMaxObjectBytes},
		// controller-runtime's own 20 requests a second throttle status
		// writes once hundreds of campaigns progress at once.
		ClientConnection: ClientConnection{QPS: 50, Burst: 100},
		// Off for a manager run by hand; the chart and config/manager turn
		// it on with a Lease name of their release.
		LeaderElection: LeaderElection{ResourceName: "blastfleet-operator.blastfleet.io"},
		Metrics:        Metrics{BindAddress: ":8443", Secure: true},
		Health:         Health{HealthProbeBindAddress: ":8081"},
		// Credentials Secrets and caBundle ConfigMaps must opt in.
		Policy: Policy{RequireCredentialsLabel: true, RequireCABundleLabel: true},
	}
}
