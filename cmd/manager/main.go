// Command manager is the blastfleet operator: it reconciles BlastDatabases
// (sharding Jobs) and SearchCampaigns (planning Jobs and MPIJob
// partitions). It never searches anything itself.
package main

import (
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	config "github.com/blastfleet/blastfleet/api/config/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers"
	"github.com/blastfleet/blastfleet/internal/operator/kubescheme"
)

// version is set at build time.
var version = "dev"

func main() {
	zopts := zap.Options{Development: false}
	cfg, err := parseArgs(os.Args[1:], &zopts, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "blastfleet manager:", err)
		os.Exit(2)
	}
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zopts)))
	if err := run(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "blastfleet manager:", err)
		os.Exit(1)
	}
}

func run(c config.Configuration) error {
	log := ctrl.Log.WithName("setup")
	if c.WorkerImage == "" {
		c.WorkerImage = config.DefaultWorkerImageRepository + ":" + version
	}
	pol := c.Policy.Policy()
	scheme := runtime.NewScheme()
	if err := kubescheme.AddToScheme(scheme); err != nil {
		return err
	}
	metrics := metricsserver.Options{BindAddress: c.Metrics.BindAddress, SecureServing: c.Metrics.Secure}
	if c.Metrics.Secure {
		metrics.FilterProvider = filters.WithAuthenticationAndAuthorization
		// HTTP/2 is off: CVE-2023-44487 and CVE-2023-39325.
		metrics.TLSOpts = []func(*tls.Config){func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} }}
	}
	mopts := ctrl.Options{
		Scheme:                  scheme,
		Metrics:                 metrics,
		HealthProbeBindAddress:  c.Health.HealthProbeBindAddress,
		PprofBindAddress:        c.Health.PprofBindAddress,
		LeaderElection:          c.LeaderElection.LeaderElect,
		LeaderElectionID:        c.LeaderElection.ResourceName,
		LeaderElectionNamespace: c.LeaderElection.ResourceNamespace,
		// The informers hold every MPIJob and Job: trimmed to what the
		// reconcilers read.
		Cache: controllers.CacheOptions(),
	}
	if c.Namespace != "" {
		mopts.Cache.DefaultNamespaces = map[string]cacheConfig{c.Namespace: {}}
		// It owns the one namespace it watches (and could not list
		// namespaces with a Role).
		c.NamespaceSelector = ""
	}
	restCfg := ctrl.GetConfigOrDie()
	restCfg.QPS, restCfg.Burst = float32(c.ClientConnection.QPS), c.ClientConnection.Burst
	mgr, err := ctrl.NewManager(restCfg, mopts)
	if err != nil {
		return fmt.Errorf("creating manager: %w", err)
	}
	if err := controllers.Setup(mgr, controllers.Config{
		WorkerImage:  c.WorkerImage,
		Site:         c.Site,
		PollInterval: c.LedgerPollInterval.Duration,
		PartitionTTL: c.PartitionTTL.Duration,
		WindDown:     c.PartitionWindDown.Duration,
		Burst:        c.BurstPolicy(),
		Policy:       pol,
		CABundle:     c.CABundle,
		STSEndpoint:  c.STSEndpoint,
		Bounds: controllers.StoreBounds{
			MaxConcurrentReconciles: c.Bounds.MaxConcurrentReconciles,
			RequestTimeout:          c.Bounds.StoreRequestTimeout.Duration,
			ReconcileTimeout:        c.Bounds.ReconcileTimeout.Duration,
			AssembleTimeout:         c.Bounds.AssembleTimeout.Duration,
			MaxObjectBytes:          c.Bounds.MaxObjectBytes,
		},
		SummaryMaxAge:        c.SummaryMaxAge.Duration,
		DefaultStoreEndpoint: c.DefaultStore.Endpoint,

		NamespaceSelector:      c.NamespaceSelector,
		PartitionNetworkPolicy: c.PartitionNetworkPolicy,
	}); err != nil {
		return err
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		return err
	}
	log.Info("starting", "version", version, "workerImage", c.WorkerImage, "policy", pol, "defaultStore", c.DefaultStore.Endpoint)
	return mgr.Start(ctrl.SetupSignalHandler())
}
