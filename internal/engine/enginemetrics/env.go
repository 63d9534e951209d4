package enginemetrics

// The environment the operator (and the local runner) gives the engine,
// forwarded by mpirun -x to every rank.
const (
	// PortBaseEnv is the first metrics port: a rank serves on it plus its
	// index among the ranks on its machine (0 or unset: no /metrics).
	PortBaseEnv = "BLASTFLEET_METRICS_PORT_BASE"
	// HostEnv is the address to bind (default all interfaces, as a pod
	// needs; the local stack binds loopback).
	HostEnv = "BLASTFLEET_METRICS_HOST"
	// LingerEnv keeps /metrics up this long after the run, so a scrape
	// sees the final counts of a run shorter than the scrape interval.
	LingerEnv = "BLASTFLEET_METRICS_LINGER"

	// The run's identity: the series' labels and the run record's.
	NamespaceEnv = "BLASTFLEET_NAMESPACE"
	CampaignEnv  = "BLASTFLEET_CAMPAIGN"
	PartitionEnv = "BLASTFLEET_PARTITION"
	// SiteEnv names where the partition runs (the engine's --site
	// default): a Kubernetes cluster or an HPC site.
	SiteEnv = "BLASTFLEET_SITE"
)

// DefaultPort is the port the operator's pods serve rank metrics on.
const DefaultPort = 9090
