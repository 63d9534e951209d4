package executor

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/blastfleet/blastfleet/internal/engine/enginemetrics"
)

// EngineBinary is the engine's program in the worker image.
const EngineBinary = "blastfleet-engine"

// Engine is what the engine is told, typed: its flags and the run
// identity its metrics and run records carry. The reconciler fills in
// what the campaign decides; an adapter sets what its kind decides
// (Argo: a partition id per step, in-process workers) and renders it
// with Argv and Env.
type Engine struct {
	// Ledger is the campaign's ledger, s3://bucket/prefix (--campaign).
	Ledger string
	// PartitionID names the partition in the ledger and in the metrics
	// (--partition-id).
	PartitionID string
	// Strategy is the campaign's output strategy (--strategy).
	Strategy string
	// CacheDir holds the shard cache (--cache-dir).
	CacheDir string
	// CacheBytes bounds each rank's shard cache (--cache-bytes; 0: the
	// engine's default, unbounded).
	CacheBytes int64
	// GroupBytes bounds a task's shard group (--group-bytes; 0: the
	// cache's bound).
	GroupBytes int64
	// Replicas are the database's Ready replicas' locations, in the
	// order of their BLASTFLEET_REPLICA<n>_AWS_* variables
	// (--database-replica each).
	Replicas []string
	// Workers are in-process BLAST workers beside the master (--workers);
	// 0 under MPI, where ranks 1.. are the workers.
	Workers int32

	// Site, Namespace and Campaign label the run's metrics and records
	// (enginemetrics' variables), with PartitionID.
	Site      string
	Namespace string
	Campaign  string
}

// Argv is the engine's command line: the program, then its flags.
func (e Engine) Argv() []string {
	argv := []string{EngineBinary,
		"--campaign", e.Ledger,
		"--partition-id", e.PartitionID,
		"--strategy", e.Strategy,
		"--cache-dir", e.CacheDir}
	if e.CacheBytes > 0 {
		argv = append(argv, "--cache-bytes", strconv.FormatInt(e.CacheBytes, 10))
	}
	if e.GroupBytes > 0 {
		argv = append(argv, "--group-bytes", strconv.FormatInt(e.GroupBytes, 10))
	}
	for _, r := range e.Replicas {
		argv = append(argv, "--database-replica", r)
	}
	if e.Workers > 0 {
		argv = append(argv, "--workers", strconv.Itoa(int(e.Workers)))
	}
	return argv
}

// Env tells every rank where to serve /metrics and what run it is (its
// series' labels and its run record).
func (e Engine) Env() []corev1.EnvVar {
	return []corev1.EnvVar{
		{Name: enginemetrics.SiteEnv, Value: e.Site},
		{Name: enginemetrics.PortBaseEnv, Value: strconv.Itoa(enginemetrics.DefaultPort)},
		{Name: enginemetrics.NamespaceEnv, Value: e.Namespace},
		{Name: enginemetrics.CampaignEnv, Value: e.Campaign},
		{Name: enginemetrics.PartitionEnv, Value: e.PartitionID},
	}
}
