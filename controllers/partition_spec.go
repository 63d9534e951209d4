package controllers

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers/executor"
	"github.com/blastfleet/blastfleet/controllers/pods"
)

// PartitionRequest is what a partition needs to run; NewPartitionSpec
// turns it into what every executor runs.
type PartitionRequest struct {
	Campaign *v1alpha1.SearchCampaign
	Index    int
	Restart  int
	// Location of the campaign's ledger, s3://bucket/prefix.
	Location string
	Image    string
	// Site names where the partition runs, in the ledger (DefaultSite if
	// empty).
	Site string
	// Database is the campaign's database, whose store the ranks reach
	// with its own variables; nil only in tests of other things.
	Database *v1alpha1.BlastDatabase
	// STSEndpoint: see StoreOpener.STSEndpoint.
	STSEndpoint string
	// QueryBytes is the queries object's size (the plan's; 0 unknown):
	// the master holds every query, and its pod's memory counts them.
	QueryBytes int64
}

// NewPartitionSpec computes what partition p runs: the engine's
// arguments typed, the rest as every executor wraps it.
func NewPartitionSpec(p *PartitionRequest) *executor.PartitionSpec {
	c := p.Campaign
	spec := c.Spec.Partitions
	name := PartitionName(c.Name, p.Index, p.Restart)
	labels := partitionLabels(c, p.Index, p.Restart)
	st := campaignStorage(c, p.Database)
	size := sizeWorkers(spec, p.Database, p.QueryBytes)
	vol, mount := scratchVolume(size.Scratch)
	site := p.Site
	if site == "" {
		site = DefaultSite
	}
	engine := executor.Engine{
		Ledger:      p.Location,
		PartitionID: name,
		Strategy:    string(c.Spec.OutputStrategy),
		CacheDir:    scratchDir + "/shards",
		// What the pod's memory holds per slot: shard groups are cut to
		// it, so a task's group stays in the page cache.
		CacheBytes: size.CacheBytes,
		GroupBytes: size.GroupBytes,
		Replicas:   st.addReplicas(p.Database),
		Site:       site,
		Namespace:  c.Namespace,
		Campaign:   c.Name,
	}
	return &executor.PartitionSpec{
		Name:           name,
		Namespace:      c.Namespace,
		Labels:         labels,
		PodLabels:      map[string]string{LabelCampaign: c.Name, LabelPartition: labels[LabelPartition]},
		Image:          p.Image,
		Workers:        spec.Workers,
		SlotsPerWorker: spec.SlotsPerWorker,
		Engine:         engine,
		Env:            withSTS(st.Env, p.STSEndpoint),
		// mpirun maps by slot, so the rank beyond the slots, the master,
		// is the first pod's extra one: worker pods declare
		// slotsPerWorker+1 ports (one template for all).
		Ports:                 executor.MetricsPorts(spec.SlotsPerWorker + 1),
		Volumes:               append([]corev1.Volume{vol}, st.Volumes...),
		VolumeMounts:          append([]corev1.VolumeMount{mount}, st.Mounts...),
		Resources:             size.Resources,
		Placement:             partitionPlacement(spec),
		ActiveDeadlineSeconds: c.Spec.ActiveDeadlineSeconds,
		Suspended:             c.Spec.QueueName != "",
	}
}

// partitionPlacement is where a campaign's pods go, partitions and
// planning alike: spec.partitions' account, priority and nodes.
func partitionPlacement(p v1alpha1.Partitions) pods.Placement {
	return pods.Placement{ServiceAccountName: p.ServiceAccountName, PriorityClassName: p.PriorityClassName,
		NodeSelector: p.NodeSelector, Tolerations: p.Tolerations}
}
