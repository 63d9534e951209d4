package main

import (
	"flag"
	"fmt"
	"io"

	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	config "github.com/blastfleet/blastfleet/api/config/v1alpha1"
)

// parseArgs is the manager's configuration: the defaults, then the file
// --config names, then every flag given, which overrides the file (the
// flags from before the file exist still, for scripts and extraArgs).
func parseArgs(args []string, zopts *zap.Options, output io.Writer) (config.Configuration, error) {
	var path string
	c := config.Default()
	fs := newFlagSet(&c, &path, &zap.Options{}, output)
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if path != "" {
		var err error
		if c, err = config.Load(path); err != nil {
			return c, err
		}
	}
	// Again over the file's values, so a flag given wins.
	fs = newFlagSet(&c, &path, zopts, io.Discard)
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("configuration: %w", err)
	}
	return c, nil
}

// newFlagSet binds the flags to c's fields, each flag's default being
// c's value.
func newFlagSet(c *config.Configuration, path *string, zopts *zap.Options, output io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	fs.SetOutput(output)
	fs.StringVar(path, "config", "", "a Configuration file ("+config.GroupVersion+"): what it names replaces the defaults, and flags given override it (docs/operator.md)")
	fs.StringVar(&c.Metrics.BindAddress, "metrics-bind-address", c.Metrics.BindAddress, "address the metrics endpoint binds to (0 disables it)")
	fs.BoolVar(&c.Metrics.Secure, "metrics-secure", c.Metrics.Secure, "serve metrics over HTTPS with Kubernetes authentication and authorization; false serves plain HTTP (for a loopback address)")
	fs.StringVar(&c.Health.HealthProbeBindAddress, "health-probe-bind-address", c.Health.HealthProbeBindAddress, "address the liveness and readiness probes bind to")
	fs.StringVar(&c.Health.PprofBindAddress, "pprof-bind-address", c.Health.PprofBindAddress, "address Go's /debug/pprof profiles of the operator bind to, plain HTTP: a loopback address or none (default: none)")
	fs.BoolVar(&c.LeaderElection.LeaderElect, "leader-elect", c.LeaderElection.LeaderElect, "elect a leader, so only one of several replicas reconciles")
	fs.StringVar(&c.LeaderElection.ResourceNamespace, "leader-election-namespace", c.LeaderElection.ResourceNamespace, "namespace of the leader election lease (default: the pod's)")
	fs.StringVar(&c.LeaderElection.ResourceName, "leader-election-id", c.LeaderElection.ResourceName, "name of the leader election lease: one per operator release, so two releases in one namespace do not wait on each other")
	fs.StringVar(&c.WorkerImage, "worker-image", c.WorkerImage, "image for sharding, planning and partitions when a resource names none (default: "+config.DefaultWorkerImageRepository+":<the manager's version>)")
	fs.DurationVar(&c.LedgerPollInterval.Duration, "ledger-poll-interval", c.LedgerPollInterval.Duration, "how often a running campaign's ledger is read for progress")
	fs.DurationVar(&c.SummaryMaxAge.Duration, "summary-max-age", c.SummaryMaxAge.Duration, "how old the summary.json a campaign's partitions keep may be for a status poll to read it instead of listing every chunk (older: no partition is writing it, and the chunks are listed)")
	fs.DurationVar(&c.PartitionWindDown.Duration, "partition-wind-down", c.PartitionWindDown.Duration, "how long a finished campaign's running partitions get to exit on their own before they are deleted")
	fs.DurationVar(&c.PartitionTTL.Duration, "partition-ttl", c.PartitionTTL.Duration, "how long finished MPIJobs are kept, with their launcher logs")
	fs.StringVar(&c.Namespace, "namespace", c.Namespace, "watch only this namespace (default: all)")
	fs.BoolVar(&c.PartitionNetworkPolicy, "partition-network-policy", c.PartitionNetworkPolicy, "give each campaign a NetworkPolicy that lets into its pods only its own pods' traffic (mpirun's ssh, the ranks' MPI connections) and scrapes of the ranks' metrics ports")
	fs.StringVar(&c.NamespaceSelector, "namespace-selector", c.NamespaceSelector, "without --namespace: reconcile campaigns and databases only in namespaces whose labels match this selector (\"\": all); the default leaves namespaces labelled "+config.OperatorNamespaceLabel+", which a release watching that namespace alone owns")
	fs.StringVar(&c.Site, "site", c.Site, "the name this cluster's partitions record in campaigns' ledgers, so status.sites tells their work from HPC sites'")
	fs.DurationVar(&c.Burst.Interval.Duration, "burst-interval", c.Burst.Interval.Duration, "least time between two changes of a deadline campaign's partition count")
	fs.DurationVar(&c.Burst.Window.Duration, "burst-window", c.Burst.Window.Duration, "least time a site's rate must be measured over before a deadline campaign's partitions follow it")
	fs.Float64Var(&c.Burst.Margin, "burst-margin", c.Burst.Margin, "share of the time left before a deadline by which the sites must finish early before partitions are removed")
	bindPolicyFlags(fs, &c.Policy)
	fs.Float64Var(&c.ClientConnection.QPS, "kube-api-qps", c.ClientConnection.QPS, "requests per second the operator may make to the Kubernetes API server (client-side limit; controller-runtime's own default, 20, throttles status writes once hundreds of campaigns progress at once)")
	fs.IntVar(&c.ClientConnection.Burst, "kube-api-burst", c.ClientConnection.Burst, "requests the operator may make to the Kubernetes API server in a burst above --kube-api-qps")
	fs.IntVar(&c.Bounds.MaxConcurrentReconciles, "max-concurrent-reconciles", c.Bounds.MaxConcurrentReconciles, "how many campaigns (and, apart, databases) are reconciled at once, so one tenant's slow store does not hold up the others")
	fs.DurationVar(&c.Bounds.StoreRequestTimeout.Duration, "store-request-timeout", c.Bounds.StoreRequestTimeout.Duration, "deadline of each request the operator makes to a tenant's object store (for a streamed read: for its answer, then for each stretch without data)")
	fs.DurationVar(&c.Bounds.ReconcileTimeout.Duration, "reconcile-timeout", c.Bounds.ReconcileTimeout.Duration, "the most one reconcile of a campaign or database may spend")
	fs.DurationVar(&c.Bounds.AssembleTimeout.Duration, "assemble-timeout", c.Bounds.AssembleTimeout.Duration, "the most the Job that assembles a campaign's result may run (the operator starts one when every chunk is decided and no partition is left to assemble; the operator itself reads no result)")
	fs.Int64Var(&c.Bounds.MaxObjectBytes, "max-object-bytes", c.Bounds.MaxObjectBytes, "the largest object the operator reads whole from a tenant's store (plan.json, ledger records, manifests); a larger one is refused naming its key")
	fs.StringVar(&c.CABundle, "ca-bundle", c.CABundle, "PEM file of certificate authorities the operator trusts, beside the system's, for every object store it reads (a private endpoint's CA); a store's own spec caBundle adds to it")
	fs.StringVar(&c.STSEndpoint, "sts-endpoint", c.STSEndpoint, "http(s) URL where the operator and its pods exchange web identity tokens (IRSA) for stores that name no credentials Secret, such as an in-cluster MinIO's STS (default: AWS STS of the store's region); never a store's own endpoint, which authors choose")
	fs.StringVar(&c.DefaultStore.Endpoint, "default-store-endpoint", c.DefaultStore.Endpoint, "http(s) URL of the object store of campaigns and databases that name no endpoint (and are not anonymous), allowed whatever --allowed-endpoints says (default: AWS S3)")
	zopts.BindFlags(fs)
	// What libraries register on the global set: controller-runtime's
	// --kubeconfig, read where it is registered.
	flag.CommandLine.VisitAll(func(f *flag.Flag) {
		if fs.Lookup(f.Name) == nil {
			fs.Var(f.Value, f.Name, f.Usage)
		}
	})
	return fs
}
