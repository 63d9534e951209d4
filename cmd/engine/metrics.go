package main

import (
	"context"
	"os"
	"strconv"
	"time"

	"github.com/go-logr/logr"
	"github.com/spf13/pflag"

	"github.com/blastfleet/blastfleet/internal/engine/enginemetrics"
)

// metricsFlags say where this rank serves /metrics; the operator sets
// them through the environment (enginemetrics' *Env names).
type metricsFlags struct {
	port   int
	host   string
	linger time.Duration
}

func (m *metricsFlags) register(fl *pflag.FlagSet) {
	fl.IntVar(&m.port, "metrics-port", envInt(enginemetrics.PortBaseEnv),
		"serve Prometheus /metrics on this port plus the rank's index on its machine (0: off; default $"+enginemetrics.PortBaseEnv+")")
	fl.StringVar(&m.host, "metrics-host", os.Getenv(enginemetrics.HostEnv),
		"address /metrics binds (default all interfaces; $"+enginemetrics.HostEnv+")")
	fl.DurationVar(&m.linger, "metrics-linger", envDuration(enginemetrics.LingerEnv),
		"keep /metrics up this long after the run, so a scrape sees its final counts ($"+enginemetrics.LingerEnv+")")
}

func envInt(name string) int {
	n, _ := strconv.Atoi(os.Getenv(name))
	return n
}

func envDuration(name string) time.Duration {
	d, _ := time.ParseDuration(os.Getenv(name))
	return d
}

// runLabels are the run's identity from the operator's environment;
// the partition defaults to --partition-id.
func runLabels(f *flags) enginemetrics.Labels {
	l := enginemetrics.Labels{Namespace: os.Getenv(enginemetrics.NamespaceEnv), Campaign: os.Getenv(enginemetrics.CampaignEnv),
		Partition: os.Getenv(enginemetrics.PartitionEnv), Site: f.site}
	if l.Partition == "" {
		l.Partition = f.partitionID
	}
	return l
}

// localRank is the rank's index among the ranks on its machine, as
// Open MPI's mpirun, MPICH's (and Intel MPI's) Hydra mpiexec or Slurm's srun
// says; 0 when run alone.
func localRank() int {
	for _, name := range []string{"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"} {
		if n, err := strconv.Atoi(os.Getenv(name)); err == nil {
			return n
		}
	}
	return 0
}

// serveMetrics starts this process's /metrics, or returns nil when off.
// A port that cannot be bound is logged, not fatal: the search matters
// more than its metrics.
func serveMetrics(ctx context.Context, f *flags, log logr.Logger) *enginemetrics.Set {
	if f.metrics.port <= 0 {
		return nil
	}
	set := enginemetrics.NewSet(runLabels(f))
	addr := enginemetrics.Addr(f.metrics.host, f.metrics.port, localRank())
	bound, err := set.Serve(ctx, addr, log)
	if err != nil {
		log.Error(err, "not serving /metrics")
		return set
	}
	log.V(1).Info("serving /metrics", "address", bound)
	return set
}

// linger keeps /metrics up after the run when asked to.
func linger(f *flags, set *enginemetrics.Set) {
	if set != nil && f.metrics.linger > 0 {
		time.Sleep(f.metrics.linger)
	}
}
