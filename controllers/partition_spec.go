package controllers

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/blastfleet/blastfleet/internal/enginemetrics"
)

// PartitionSpec is a partition as any executor runs it: what the engine's
// ranks need (command, environment, ports, volumes, resources) and where
// its pods go, computed once from a PartitionRequest. An executor only
// wraps it in objects of its kind; how it starts the ranks (mpirun over
// sshd for MPIJobs) is its own business.
type PartitionSpec struct {
	// Name is the partition's object name and the engine's partition id.
	Name      string
	Namespace string
	// Labels go on the partition's object (LabelPartition, LabelRestart,
	// the Kueue queue...); PodLabels on every pod it runs.
	Labels    map[string]string
	PodLabels map[string]string
	Image     string

	// Workers hosts run SlotsPerWorker searching ranks each; the
	// engine's master, rank 0, is one rank more (Ranks).
	Workers        int32
	SlotsPerWorker int32
	// Command is the engine's argv, the same for every rank.
	Command []string
	// Env is every rank's environment; credentials are secretKeyRefs, so
	// no value of them is in the object.
	Env []corev1.EnvVar
	// Ports a worker declares: one metrics port per rank it may run
	// (its slots, and the master on the first).
	Ports []corev1.ContainerPort
	// Volumes of a worker and where the engine's container mounts them.
	Volumes      []corev1.Volume
	VolumeMounts []corev1.VolumeMount
	// Resources of a worker: the campaign's, defaulted (sizeWorkers).
	Resources corev1.ResourceRequirements

	PriorityClassName string
	// ServiceAccountName runs every pod of the partition, for its
	// identity (IRSA, pod identity) where stores name no Secret.
	ServiceAccountName string
	NodeSelector       map[string]string
	Tolerations        []corev1.Toleration

	// ActiveDeadlineSeconds is the campaign's bound on its running time,
	// which no partition outlives (nil: none).
	ActiveDeadlineSeconds *int64

	// Suspended partitions wait for Kueue to admit them (spec.queueName).
	Suspended bool
}

// Ranks is the partition's MPI world size: a searching rank per slot
// and the master. The master takes no slot of its own: it schedules and
// merges metadata, waiting on its workers most of the time, so a slot
// given to it would leave a core idle (a partition of 2 workers of 1 slot
// searched with one rank).
func (s *PartitionSpec) Ranks() int32 { return s.Workers*s.SlotsPerWorker + 1 }

// NewPartitionSpec computes what partition p runs.
func NewPartitionSpec(p *PartitionRequest) *PartitionSpec {
	c := p.Campaign
	spec := c.Spec.Partitions
	name := PartitionName(c.Name, p.Index, p.Restart)
	labels := partitionLabels(c, p.Index, p.Restart)
	st := campaignStorage(c, p.Database)
	size := sizeWorkers(spec, p.Database, p.QueryBytes)
	vol, mount := scratchVolume(size.Scratch)
	command := []string{"blastfleet-engine",
		"--campaign", p.Location,
		"--partition-id", name,
		"--strategy", string(c.Spec.OutputStrategy),
		"--cache-dir", scratchDir + "/shards"}
	if size.CacheBytes > 0 {
		// What the pod's memory holds per slot: shard groups are cut to
		// it, so a task's group stays in the page cache.
		command = append(command, "--cache-bytes", strconv.FormatInt(size.CacheBytes, 10))
	}
	if size.GroupBytes > 0 {
		command = append(command, "--group-bytes", strconv.FormatInt(size.GroupBytes, 10))
	}
	command = append(command, st.addReplicas(p.Database)...)
	return &PartitionSpec{
		Name:                  name,
		Namespace:             c.Namespace,
		Labels:                labels,
		PodLabels:             map[string]string{LabelCampaign: c.Name, LabelPartition: labels[LabelPartition]},
		Image:                 p.Image,
		Workers:               spec.Workers,
		SlotsPerWorker:        spec.SlotsPerWorker,
		Command:               command,
		Env:                   withSTS(append(st.Env, engineEnv(c.Namespace, c.Name, name, p.Site)...), p.STSEndpoint),
		Ports:                 metricsPorts(spec.SlotsPerWorker + 1),
		Volumes:               append([]corev1.Volume{vol}, st.Volumes...),
		VolumeMounts:          append([]corev1.VolumeMount{mount}, st.Mounts...),
		ServiceAccountName:    spec.ServiceAccountName,
		Resources:             size.Resources,
		PriorityClassName:     spec.PriorityClassName,
		NodeSelector:          spec.NodeSelector,
		Tolerations:           spec.Tolerations,
		ActiveDeadlineSeconds: c.Spec.ActiveDeadlineSeconds,
		Suspended:             c.Spec.QueueName != "",
	}
}

// PodTemplate is a pod of the partition running container c with
// volumes, placed as the campaign says and restricted (restrictPod). The
// volumes are the adapter's to choose: not every pod of a partition runs
// the engine.
func (s *PartitionSpec) PodTemplate(c corev1.Container, volumes ...corev1.Volume) corev1.PodTemplateSpec {
	t := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: s.PodLabels},
		Spec: corev1.PodSpec{
			ServiceAccountName: s.ServiceAccountName,
			PriorityClassName:  s.PriorityClassName,
			NodeSelector:       s.NodeSelector,
			Tolerations:        s.Tolerations,
			Containers:         []corev1.Container{c},
			Volumes:            volumes,
		},
	}
	restrictPod(&t.Spec)
	return t
}

// engineEnv tells every rank where to serve /metrics and what run it is
// (its series' labels and its run record).
func engineEnv(namespace, campaign, partition, site string) []corev1.EnvVar {
	if site == "" {
		site = DefaultSite
	}
	return []corev1.EnvVar{
		{Name: enginemetrics.SiteEnv, Value: site},
		{Name: enginemetrics.PortBaseEnv, Value: strconv.Itoa(enginemetrics.DefaultPort)},
		{Name: enginemetrics.NamespaceEnv, Value: namespace},
		{Name: enginemetrics.CampaignEnv, Value: campaign},
		{Name: enginemetrics.PartitionEnv, Value: partition},
	}
}

// metricsPorts declares a worker pod's metrics ports: its ranks serve on
// the base port plus their index on the pod. The PodMonitor scrapes the
// one named "metrics" (the pod's first rank). mpirun maps by slot, so
// the rank beyond the slots, the master, is the first pod's extra one:
// worker pods declare slotsPerWorker+1 ports (one template for all).
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
