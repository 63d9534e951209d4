package controllers

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/blastfleet/blastfleet/internal/enginemetrics"
)

// PartitionCommand is what runs a partition, whatever runs it: the
// engine's command line, the environment every rank needs, the ports its
// ranks serve and the scratch space it writes. It is built once from the
// campaign; an executor (MPIJob today; Slurm and Argo to come) only
// wraps it in its own objects: how ranks are launched and where they run.
type PartitionCommand struct {
	// Name is the partition's name: its object's, its run record's and its
	// ledger holder's prefix.
	Name string
	// Ranks is how many engine ranks run: workers x slots per worker
	// (rank 0 is the master).
	Ranks int32
	// Engine is blastfleet-engine's argv, program first.
	Engine []string
	// Env is every rank's environment: object storage credentials (by
	// Secret reference), MPI settings and the metrics labels.
	Env []corev1.EnvVar
	// Ports are what a worker's ranks serve (/metrics, one per slot).
	Ports []corev1.ContainerPort
	// Scratch is where ranks write: the shard cache under it, /tmp-like
	// files; an emptyDir on Kubernetes, node-local disk under Slurm.
	Scratch string
}

// scratchDir is where workers cache shards: an emptyDir, since the root
// filesystem may be read-only and the home directory unwritable.
const scratchDir = "/scratch"

// NewPartitionCommand is partition p's command.
func NewPartitionCommand(p *PartitionRequest) PartitionCommand {
	c := p.Campaign
	spec := c.Spec.Partitions
	name := PartitionName(c.Name, p.Index, p.Restart)
	env := append(storageEnv(c.Spec.Output), corev1.EnvVar{Name: "OMPI_MCA_btl_vader_single_copy_mechanism", Value: "none"})
	env = append(env, engineEnv(c.Namespace, c.Name, name)...)
	return PartitionCommand{
		Name:  name,
		Ranks: spec.Workers * spec.SlotsPerWorker,
		Engine: []string{"blastfleet-engine",
			"--campaign", p.Location,
			"--partition-id", name,
			"--strategy", string(c.Spec.OutputStrategy),
			"--cache-dir", scratchDir + "/shards"},
		Env:     env,
		Ports:   metricsPorts(spec.SlotsPerWorker),
		Scratch: scratchDir,
	}
}

// engineEnv tells every rank where to serve /metrics and what run it is
// (its series' labels and its run record).
func engineEnv(namespace, campaign, partition string) []corev1.EnvVar {
	return []corev1.EnvVar{
		{Name: enginemetrics.PortBaseEnv, Value: strconv.Itoa(enginemetrics.DefaultPort)},
		{Name: enginemetrics.NamespaceEnv, Value: namespace},
		{Name: enginemetrics.CampaignEnv, Value: campaign},
		{Name: enginemetrics.PartitionEnv, Value: partition},
	}
}

// metricsPorts declares a worker pod's metrics ports: its ranks serve on
// the base port plus their index on the pod. The PodMonitor scrapes the
// one named "metrics" (the pod's first rank).
func metricsPorts(slots int32) []corev1.ContainerPort {
	ports := make([]corev1.ContainerPort, slots)
	for i := range ports {
		name := "metrics"
		if i > 0 {
			name = fmt.Sprintf("metrics-%d", i)
		}
		ports[i] = corev1.ContainerPort{Name: name, ContainerPort: int32(enginemetrics.DefaultPort + i)}
	}
	return ports
}
