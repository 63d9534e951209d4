package controllers

import (
	"fmt"
	"strconv"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	"github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/validation"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// MPIJobExecutor runs partitions as kubeflow.org/v2beta1 MPIJobs: the
// launcher runs mpirun of blastfleet-engine over the worker pods' slots.
type MPIJobExecutor struct {
	// TTLSecondsAfterFinished keeps finished MPIJobs (and their launcher
	// logs) this long.
	TTLSecondsAfterFinished int32
}

// The worker image's non-root sshd (images/worker).
const (
	workerSSHDir  = "/home/mpiuser/.ssh"
	workerSSHPort = 2222
)

func (MPIJobExecutor) NewObject() client.Object   { return &kubeflow.MPIJob{} }
func (MPIJobExecutor) NewList() client.ObjectList { return &kubeflow.MPIJobList{} }

func (MPIJobExecutor) Items(list client.ObjectList) []client.Object {
	l := list.(*kubeflow.MPIJobList)
	out := make([]client.Object, len(l.Items))
	for i := range l.Items {
		out[i] = &l.Items[i]
	}
	return out
}

// Build wraps the partition's command in an MPIJob: mpirun in the
// launcher over the worker pods' slots. It is validated with the MPI
// operator's own validation, since the MPI operator never requeues an
// invalid MPIJob.
func (e MPIJobExecutor) Build(p *PartitionRequest) (client.Object, error) {
	c := p.Campaign
	spec := c.Spec.Partitions
	cmd := NewPartitionCommand(p)
	name := cmd.Name

	labels := partitionLabels(c, p.Index, p.Restart)
	podLabels := map[string]string{LabelCampaign: c.Name, LabelPartition: labels[LabelPartition]}

	env := cmd.Env
	args := mpirunArgs(cmd)

	launcher := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: podLabels},
		Spec: corev1.PodSpec{
			RestartPolicy:     corev1.RestartPolicyNever,
			PriorityClassName: spec.PriorityClassName,
			NodeSelector:      spec.NodeSelector,
			Tolerations:       spec.Tolerations,
			Containers: []corev1.Container{{
				Name:                     "launcher",
				Image:                    p.Image,
				Command:                  []string{"mpirun"},
				Args:                     args,
				Env:                      env,
				TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU: mustQuantity("100m"), corev1.ResourceMemory: mustQuantity("128Mi"),
				}},
			}},
		},
	}
	worker := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: podLabels},
		Spec: corev1.PodSpec{
			PriorityClassName: spec.PriorityClassName,
			NodeSelector:      spec.NodeSelector,
			Tolerations:       spec.Tolerations,
			Containers: []corev1.Container{{
				// The worker image's default command runs sshd for mpirun.
				Name:         "worker",
				Image:        p.Image,
				Resources:    spec.Resources,
				VolumeMounts: []corev1.VolumeMount{{Name: "scratch", MountPath: cmd.Scratch}},
				Ports:        append([]corev1.ContainerPort{{Name: "ssh", ContainerPort: workerSSHPort}}, cmd.Ports...),
				// Ready once sshd listens, so WaitForWorkersReady starts the
				// launcher only when mpirun can reach every worker.
				ReadinessProbe: &corev1.Probe{
					ProbeHandler:  corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(workerSSHPort)}},
					PeriodSeconds: 2,
				},
			}},
			Volumes: []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
		},
	}

	job := &kubeflow.MPIJob{
		TypeMeta:   metav1.TypeMeta{APIVersion: kubeflow.SchemeGroupVersion.String(), Kind: "MPIJob"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: c.Namespace, Labels: labels},
		Spec: kubeflow.MPIJobSpec{
			SlotsPerWorker: ptr.To(spec.SlotsPerWorker),
			RunPolicy: kubeflow.RunPolicy{
				CleanPodPolicy: ptr.To(kubeflow.CleanPodPolicyRunning),
				// The operator replaces a failed partition itself, with
				// backoff and a budget; the ledger keeps its chunks.
				BackoffLimit:            ptr.To[int32](0),
				TTLSecondsAfterFinished: ptr.To(e.TTLSecondsAfterFinished),
				// Kueue admits a queued partition by unsuspending it.
				Suspend: ptr.To(c.Spec.QueueName != ""),
			},
			// The worker image runs sshd as mpiuser, as the MPI operator's
			// own base images do, so the SSH keys go to its home.
			SSHAuthMountPath:       workerSSHDir,
			MPIImplementation:      kubeflow.MPIImplementationOpenMPI,
			LauncherCreationPolicy: kubeflow.LauncherCreationPolicyWaitForWorkersReady,
			MPIReplicaSpecs: map[kubeflow.MPIReplicaType]*kubeflow.ReplicaSpec{
				kubeflow.MPIReplicaTypeLauncher: {Replicas: ptr.To[int32](1), RestartPolicy: kubeflow.RestartPolicyNever, Template: launcher},
				kubeflow.MPIReplicaTypeWorker:   {Replicas: ptr.To(spec.Workers), RestartPolicy: kubeflow.RestartPolicyNever, Template: worker},
			},
		},
	}
	if errs := validation.ValidateMPIJob(defaulted(job)); len(errs) > 0 {
		return nil, fmt.Errorf("partition %s would be an invalid MPIJob: %w", name, errs.ToAggregate())
	}
	return job, nil
}

// defaulted applies the MPI operator's defaults to a copy, as its
// controller does before validating.
func defaulted(job *kubeflow.MPIJob) *kubeflow.MPIJob {
	j := job.DeepCopy()
	kubeflow.SetDefaults_MPIJob(j)
	return j
}

// State maps the MPIJob's conditions to a partition phase.
func (MPIJobExecutor) State(obj client.Object) PartitionState {
	job := obj.(*kubeflow.MPIJob)
	cond := func(t kubeflow.JobConditionType) *kubeflow.JobCondition {
		for i := range job.Status.Conditions {
			if c := &job.Status.Conditions[i]; c.Type == t && c.Status == corev1.ConditionTrue {
				return c
			}
		}
		return nil
	}
	if c := cond(kubeflow.JobFailed); c != nil {
		return PartitionState{Phase: PartitionFailed, FinishedAt: c.LastTransitionTime.Time, Reason: c.Reason, Message: c.Message}
	}
	if c := cond(kubeflow.JobSucceeded); c != nil {
		return PartitionState{Phase: PartitionSucceeded, FinishedAt: c.LastTransitionTime.Time, Reason: c.Reason, Message: c.Message}
	}
	if ptr.Deref(job.Spec.RunPolicy.Suspend, false) || cond(kubeflow.JobSuspended) != nil {
		return PartitionState{Phase: PartitionQueued, Reason: "Suspended"}
	}
	if cond(kubeflow.JobRunning) != nil {
		return PartitionState{Phase: PartitionRunning}
	}
	return PartitionState{Phase: PartitionQueued, Reason: "Starting"}
}

// mpirunArgs launches the command's ranks with the launcher's mpirun,
// forwarding the environment by name (the values stay in the pods'
// environment, Secrets included).
func mpirunArgs(cmd PartitionCommand) []string {
	args := []string{"-np", strconv.Itoa(int(cmd.Ranks)), "--bind-to", "none"}
	for _, e := range cmd.Env {
		args = append(args, "-x", e.Name)
	}
	return append(args, cmd.Engine...)
}
