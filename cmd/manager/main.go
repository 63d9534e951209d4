// Command manager is the blastfleet operator: it reconciles BlastDatabases
// (sharding Jobs) and SearchCampaigns (planning Jobs and MPIJob
// partitions). It never searches anything itself.
package main

import (
	"crypto/tls"
	"flag"
	"fmt"
	"os"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/blastfleet/blastfleet/controllers"
	"github.com/blastfleet/blastfleet/internal/burst"
	"github.com/blastfleet/blastfleet/internal/kubescheme"
	"github.com/blastfleet/blastfleet/internal/policy"
)

// version is set at build time.
var version = "dev"

type options struct {
	metricsAddr, probeAddr string
	secureMetrics          bool
	leaderElect            bool
	leaderElectionNS       string
	leaderElectionID       string
	namespaceSelector      string
	networkPolicy          bool
	workerImage            string
	pollInterval           time.Duration
	partitionTTL           time.Duration
	windDown               time.Duration
	namespace              string
	site                   string
	burst                  burst.Policy
	policy                 policy.Policy
	caBundle               string
	stsEndpoint            string
	bounds                 controllers.StoreBounds
	summaryMaxAge          time.Duration
	kubeQPS                float64
	kubeBurst              int
}

func main() {
	var o options
	flag.StringVar(&o.metricsAddr, "metrics-bind-address", ":8443", "address the metrics endpoint binds to (0 disables it)")
	flag.BoolVar(&o.secureMetrics, "metrics-secure", true, "serve metrics over HTTPS with Kubernetes authentication and authorization; false serves plain HTTP (for a loopback address)")
	flag.StringVar(&o.probeAddr, "health-probe-bind-address", ":8081", "address the liveness and readiness probes bind to")
	flag.BoolVar(&o.leaderElect, "leader-elect", false, "elect a leader, so only one of several replicas reconciles")
	flag.StringVar(&o.leaderElectionNS, "leader-election-namespace", "", "namespace of the leader election lease (default: the pod's)")
	flag.StringVar(&o.leaderElectionID, "leader-election-id", "blastfleet-operator.blastfleet.io", "name of the leader election lease: one per operator release, so two releases in one namespace do not wait on each other")
	flag.StringVar(&o.workerImage, "worker-image", "ghcr.io/blastfleet/worker:"+version, "image for sharding, planning and partitions when a resource names none")
	flag.DurationVar(&o.pollInterval, "ledger-poll-interval", 15*time.Second, "how often a running campaign's ledger is read for progress")
	flag.DurationVar(&o.summaryMaxAge, "summary-max-age", controllers.DefaultSummaryMaxAge, "how old the summary.json a campaign's partitions keep may be for a status poll to read it instead of listing every chunk (older: no partition is writing it, and the chunks are listed)")
	flag.DurationVar(&o.windDown, "partition-wind-down", time.Minute, "how long a finished campaign's running partitions get to exit on their own before they are deleted")
	flag.DurationVar(&o.partitionTTL, "partition-ttl", time.Hour, "how long finished MPIJobs are kept, with their launcher logs")
	flag.StringVar(&o.namespace, "namespace", "", "watch only this namespace (default: all)")
	flag.BoolVar(&o.networkPolicy, "partition-network-policy", true, "give each campaign a NetworkPolicy that lets into its pods only its own pods' traffic (mpirun's ssh, the ranks' MPI connections) and scrapes of the ranks' metrics ports")
	flag.StringVar(&o.namespaceSelector, "namespace-selector", controllers.DefaultNamespaceSelector, "without --namespace: reconcile campaigns and databases only in namespaces whose labels match this selector (\"\": all); the default leaves namespaces labelled "+controllers.OperatorNamespaceLabel+", which a release watching that namespace alone owns")
	flag.StringVar(&o.site, "site", controllers.DefaultSite, "the name this cluster's partitions record in campaigns' ledgers, so status.sites tells their work from HPC sites'")
	flag.DurationVar(&o.burst.MinInterval, "burst-interval", burst.DefaultPolicy.MinInterval, "least time between two changes of a deadline campaign's partition count")
	flag.DurationVar(&o.burst.MinWindow, "burst-window", burst.DefaultPolicy.MinWindow, "least time a site's rate must be measured over before a deadline campaign's partitions follow it")
	flag.Float64Var(&o.burst.Margin, "burst-margin", burst.DefaultPolicy.Margin, "share of the time left before a deadline by which the sites must finish early before partitions are removed")
	bindPolicyFlags(flag.CommandLine, &o.policy)
	flag.Float64Var(&o.kubeQPS, "kube-api-qps", 50, "requests per second the operator may make to the Kubernetes API server (client-side limit; controller-runtime's own default, 20, throttles status writes once hundreds of campaigns progress at once)")
	flag.IntVar(&o.kubeBurst, "kube-api-burst", 100, "requests the operator may make to the Kubernetes API server in a burst above --kube-api-qps")
	flag.IntVar(&o.bounds.MaxConcurrentReconciles, "max-concurrent-reconciles", controllers.DefaultMaxConcurrent, "how many campaigns (and, apart, databases) are reconciled at once, so one tenant's slow store does not hold up the others")
	flag.DurationVar(&o.bounds.RequestTimeout, "store-request-timeout", controllers.DefaultStoreRequestTimeout, "deadline of each request the operator makes to a tenant's object store (for a streamed read: for its answer, then for each stretch without data)")
	flag.DurationVar(&o.bounds.ReconcileTimeout, "reconcile-timeout", controllers.DefaultReconcileTimeout, "the most one reconcile of a campaign or database may spend")
	flag.DurationVar(&o.bounds.AssembleTimeout, "assemble-timeout", controllers.DefaultAssembleTimeout, "the most the Job that assembles a campaign's result may run (the operator starts one when every chunk is decided and no partition is left to assemble; the operator itself reads no result)")
	flag.Int64Var(&o.bounds.MaxObjectBytes, "max-object-bytes", controllers.DefaultMaxObjectBytes, "the largest object the operator reads whole from a tenant's store (plan.json, ledger records, manifests); a larger one is refused naming its key")
	flag.StringVar(&o.caBundle, "ca-bundle", "", "PEM file of certificate authorities the operator trusts, beside the system's, for every object store it reads (a private endpoint's CA); a store's own spec caBundle adds to it")
	flag.StringVar(&o.stsEndpoint, "sts-endpoint", "", "http(s) URL where the operator and its pods exchange web identity tokens (IRSA) for stores that name no credentials Secret, such as an in-cluster MinIO's STS (default: AWS STS of the store's region); never a store's own endpoint, which authors choose")
	zopts := zap.Options{Development: false}
	zopts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zopts)))
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "blastfleet manager:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	log := ctrl.Log.WithName("setup")
	if err := o.policy.Validate(); err != nil {
		return err
	}
	if err := o.burst.Validate(); err != nil {
		return err
	}
	scheme := runtime.NewScheme()
	if err := kubescheme.AddToScheme(scheme); err != nil {
		return err
	}
	metrics := metricsserver.Options{BindAddress: o.metricsAddr, SecureServing: o.secureMetrics}
	if o.secureMetrics {
		metrics.FilterProvider = filters.WithAuthenticationAndAuthorization
		// HTTP/2 is off: CVE-2023-44487 and CVE-2023-39325.
		metrics.TLSOpts = []func(*tls.Config){func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} }}
	}
	mopts := ctrl.Options{
		Scheme:                  scheme,
		Metrics:                 metrics,
		HealthProbeBindAddress:  o.probeAddr,
		LeaderElection:          o.leaderElect,
		LeaderElectionID:        o.leaderElectionID,
		LeaderElectionNamespace: o.leaderElectionNS,
	}
	if o.namespace != "" {
		mopts.Cache.DefaultNamespaces = map[string]cacheConfig{o.namespace: {}}
		// It owns the one namespace it watches (and could not list
		// namespaces with a Role).
		o.namespaceSelector = ""
	}
	restCfg := ctrl.GetConfigOrDie()
	restCfg.QPS, restCfg.Burst = float32(o.kubeQPS), o.kubeBurst
	mgr, err := ctrl.NewManager(restCfg, mopts)
	if err != nil {
		return fmt.Errorf("creating manager: %w", err)
	}
	if err := controllers.Setup(mgr, controllers.Config{
		WorkerImage:   o.workerImage,
		Site:          o.site,
		PollInterval:  o.pollInterval,
		PartitionTTL:  o.partitionTTL,
		WindDown:      o.windDown,
		Burst:         o.burst,
		Policy:        o.policy,
		CABundle:      o.caBundle,
		STSEndpoint:   o.stsEndpoint,
		Bounds:        o.bounds,
		SummaryMaxAge: o.summaryMaxAge,

		NamespaceSelector:      o.namespaceSelector,
		PartitionNetworkPolicy: o.networkPolicy,
	}); err != nil {
		return err
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		return err
	}
	log.Info("starting", "version", version, "workerImage", o.workerImage, "policy", o.policy)
	return mgr.Start(ctrl.SetupSignalHandler())
}
