package executor

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/blastfleet/blastfleet/controllers/pods"
	"github.com/blastfleet/blastfleet/internal/engine/enginemetrics"
)

// PartitionSpec is a partition as any executor runs it: what the engine's
// ranks need (its typed arguments, environment, ports, volumes,
// resources) and where its pods go, computed once by the reconciler. An
// executor wraps it in objects of its kind; how it starts the ranks
// (mpirun over sshd for MPIJobs) is its own business.
type PartitionSpec struct {
	// Name is the partition's object name.
	Name      string
	Namespace string
	// Labels go on the partition's object (its index, restart, the Kueue
	// queue...); PodLabels on every pod it runs.
	Labels    map[string]string
	PodLabels map[string]string
	Image     string

	// Workers hosts run SlotsPerWorker searching ranks each; the
	// engine's master, rank 0, is one rank more (Ranks).
	Workers        int32
	SlotsPerWorker int32
	// Engine is what every rank of the partition runs, as one MPI world
	// runs it; adapters render it (Argv, EnvFor).
	Engine Engine
	// Env is every rank's environment besides the engine's run identity:
	// the stores', whose credentials are secretKeyRefs, so no value of
	// them is in the object.
	Env []corev1.EnvVar
	// Ports a worker declares: one metrics port per rank it may run
	// (its slots, and the master on the first).
	Ports []corev1.ContainerPort
	// Volumes of a worker and where the engine's container mounts them.
	Volumes      []corev1.Volume
	VolumeMounts []corev1.VolumeMount
	// Resources of a worker: the campaign's, defaulted.
	Resources corev1.ResourceRequirements

	// Placement of every pod of the partition; its service account gives
	// the pods their identity (IRSA, pod identity) where stores name no
	// Secret.
	pods.Placement

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

// EnvFor is the environment of a rank running e: the partition's, then
// e's run identity. s.Env is not changed.
func (s *PartitionSpec) EnvFor(e Engine) []corev1.EnvVar {
	return append(slices.Clone(s.Env), e.Env()...)
}

// Pod is a pod of the partition running container c with volumes, placed
// as the campaign says. The volumes are the adapter's to choose: not
// every pod of a partition runs the engine.
func (s *PartitionSpec) Pod(c corev1.Container, volumes ...corev1.Volume) pods.Pod {
	return pods.Pod{Labels: s.PodLabels, Placement: s.Placement, Containers: []corev1.Container{c}, Volumes: volumes}
}

// PodTemplate is Pod as a restricted template.
func (s *PartitionSpec) PodTemplate(c corev1.Container, volumes ...corev1.Volume) corev1.PodTemplateSpec {
	return s.Pod(c, volumes...).Template()
}

// MetricsPorts declares n metrics ports of a pod: its ranks serve on
// the base port plus their index on the pod. The PodMonitor scrapes the
// one named "metrics" (the pod's first rank).
func MetricsPorts(n int32) []corev1.ContainerPort {
	ports := make([]corev1.ContainerPort, n)
	for i := range ports {
		name := "metrics"
		if i > 0 {
			name = fmt.Sprintf("metrics-%d", i)
		}
		ports[i] = corev1.ContainerPort{Name: name, ContainerPort: int32(enginemetrics.DefaultPort + i)}
	}
	return ports
}
