// Package mpijob is the executor that runs partitions as
// kubeflow.org/v2beta1 MPIJobs: a launcher runs mpirun of the engine
// over the worker pods' slots, the workers run sshd.
package mpijob

import (
	"fmt"
	"strconv"
	"time"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	"github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/validation"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers/executor"
)

// Executor runs partitions as kubeflow.org/v2beta1 MPIJobs: the
// launcher runs mpirun of blastfleet-engine over the worker pods' slots.
type Executor struct {
	// TTLSecondsAfterFinished keeps finished MPIJobs (and their launcher
	// logs) this long.
	TTLSecondsAfterFinished int32
}

// The worker image's non-root sshd (images/worker).
const (
	workerSSHDir  = "/home/mpiuser/.ssh"
	workerSSHPort = 2222
)

// workerSSHD is the worker image's CMD (images/worker/Dockerfile).
var workerSSHD = []string{"/usr/sbin/sshd", "-De", "-f", "/home/mpiuser/.sshd_config"}

// stopRanks is the worker pods' preStop hook. A worker pod's first
// process is sshd: SIGTERM ends it, and with it, by SIGKILL, every rank
// in the pod, the master among them, before the master could record its
// chunks as stopped and release their leases (a stop would cost each
// chunk a lease's wait and count as abandoned). So before that SIGTERM,
// the hook sends the engine's ranks their own and waits (20 s at most,
// inside the pod's 30 s grace period) until they have exited.
const stopRanks = `ranks() { for p in /proc/[0-9]*; do case "$(readlink "$p/exe" 2>/dev/null)" in */blastfleet-engine) echo "${p#/proc/}";; esac; done; }
pids=$(ranks); [ -n "$pids" ] && kill -TERM $pids 2>/dev/null
i=0; while [ $i -lt 100 ]; do [ -z "$(ranks)" ] && exit 0; sleep 0.2; i=$((i+1)); done; exit 0`

func (Executor) Kind() v1alpha1.ExecutorKind { return v1alpha1.ExecutorMPIJob }
func (Executor) NewObject() client.Object    { return &kubeflow.MPIJob{} }
func (Executor) NewList() client.ObjectList  { return &kubeflow.MPIJobList{} }

func (Executor) Items(list client.ObjectList) []client.Object {
	return executor.Objects(list.(*kubeflow.MPIJobList).Items)
}

// OpenMPIEnv is how Open MPI runs in the partition's pods:
//   - its shared-memory transport must not use ptrace-based single copies,
//     which containers forbid;
//   - the master is one rank more than the pods' slots (Ranks), so it
//     shares a core on the first pod: waiting ranks yield the CPU
//     instead of spinning on it, or the master would take half a
//     searching rank's core;
//   - ranks talk TCP between pods and shared memory within one, which the
//     ob1 PML drives; left to choose, Open MPI first probes the cm and ucx
//     PMLs (libfabric, PSM, UCX devices), 0.17 s of every partition's start
//     here (mpirun -np 3 of a one-query search: 0.65 s, 0.48 s with ob1);
//   - told to stop (the launcher pod deleted: suspend, scale-down,
//     wind-down), mpirun passes SIGTERM to the ranks and SIGKILLs them
//     odls_base_sigkill_timeout seconds later: 1 by default, too short on
//     a loaded node for the master to release its leases and record the
//     stops; 3 gives it room, and mpirun exits about 6 s after its
//     SIGTERM, well inside the pod's 30 s grace period.
var OpenMPIEnv = []corev1.EnvVar{
	{Name: "OMPI_MCA_btl_vader_single_copy_mechanism", Value: "none"},
	{Name: "OMPI_MCA_mpi_yield_when_idle", Value: "1"},
	{Name: "OMPI_MCA_pml", Value: "ob1"},
	{Name: "OMPI_MCA_odls_base_sigkill_timeout", Value: "3"},
}

// Build wraps the partition in an MPIJob: a launcher running mpirun of
// the engine over the workers' slots, and workers running sshd. It is
// validated with the MPI operator's own validation, since the MPI
// operator never requeues an invalid MPIJob.
func (e Executor) Build(s *executor.PartitionSpec) (client.Object, error) {
	// Every rank runs the partition's engine as it is: the MPI world is
	// the partition, rank 0 its master.
	env := append(s.EnvFor(s.Engine), OpenMPIEnv...)
	// The hostfile has workers x slotsPerWorker slots and Ranks is one
	// more (the master): mpirun refuses that without --oversubscribe, and
	// with it maps the extra rank, rank 0, onto the first pod.
	args := []string{"-np", strconv.Itoa(int(s.Ranks())), "--oversubscribe", "--bind-to", "none"}
	for _, v := range env {
		args = append(args, "-x", v.Name) // forwarded by name: values stay in the environment
	}
	args = append(args, s.Engine.Argv()...)

	launcher := s.Pod(corev1.Container{
		Name:                     "launcher",
		Image:                    s.Image,
		Command:                  []string{"mpirun"},
		Args:                     args,
		Env:                      env,
		TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi"),
		}},
	})
	launcher.RestartPolicy = corev1.RestartPolicyNever
	launcher.InitContainers = []corev1.Container{waitForWorkers(s)}
	worker := s.PodTemplate(corev1.Container{
		// sshd for mpirun, as the worker image's default command runs it:
		// given here, since the MPI operator replaces an empty command
		// with its own "sshd -De", which reads the system's config and
		// finds no host key.
		Name:         "worker",
		Image:        s.Image,
		Command:      workerSSHD,
		Lifecycle:    &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"sh", "-c", stopRanks}}}},
		Resources:    s.Resources,
		VolumeMounts: s.VolumeMounts,
		Ports:        append([]corev1.ContainerPort{{Name: "ssh", ContainerPort: workerSSHPort}}, s.Ports...),
		// Ready once sshd listens, so WaitForWorkersReady starts the
		// launcher only when mpirun can reach every worker.
		ReadinessProbe: &corev1.Probe{
			ProbeHandler:  corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(workerSSHPort)}},
			PeriodSeconds: 2,
		},
	}, s.Volumes...)

	job := &kubeflow.MPIJob{
		TypeMeta:   metav1.TypeMeta{APIVersion: kubeflow.SchemeGroupVersion.String(), Kind: "MPIJob"},
		ObjectMeta: metav1.ObjectMeta{Name: s.Name, Namespace: s.Namespace, Labels: s.Labels},
		Spec: kubeflow.MPIJobSpec{
			SlotsPerWorker: ptr.To(s.SlotsPerWorker),
			RunPolicy: kubeflow.RunPolicy{
				CleanPodPolicy: ptr.To(kubeflow.CleanPodPolicyRunning),
				// The operator replaces a failed partition itself, with
				// backoff and a budget; the ledger keeps its chunks.
				BackoffLimit:            ptr.To[int32](0),
				TTLSecondsAfterFinished: ptr.To(e.TTLSecondsAfterFinished),
				// Kueue admits a queued partition by unsuspending it.
				Suspend: ptr.To(s.Suspended),
			},
			// The worker image runs sshd as mpiuser, as the MPI operator's
			// own base images do, so the SSH keys go to its home.
			SSHAuthMountPath:       workerSSHDir,
			MPIImplementation:      kubeflow.MPIImplementationOpenMPI,
			LauncherCreationPolicy: kubeflow.LauncherCreationPolicyWaitForWorkersReady,
			MPIReplicaSpecs: map[kubeflow.MPIReplicaType]*kubeflow.ReplicaSpec{
				kubeflow.MPIReplicaTypeLauncher: {Replicas: ptr.To[int32](1), RestartPolicy: kubeflow.RestartPolicyNever, Template: launcher.Template()},
				kubeflow.MPIReplicaTypeWorker:   {Replicas: ptr.To(s.Workers), RestartPolicy: kubeflow.RestartPolicyNever, Template: worker},
			},
		},
	}
	if errs := validation.ValidateMPIJob(defaulted(job)); len(errs) > 0 {
		return nil, fmt.Errorf("partition %s would be an invalid MPIJob: %w", s.Name, errs.ToAggregate())
	}
	return job, nil
}

// waitForWorkers is the launcher's init container: it waits until every
// worker's sshd answers. WaitForWorkersReady does that only for MPIJobs
// created running; one that Kueue admits (created suspended) gets its
// launcher at once, which starts with the workers on resume, and mpirun's
// first ssh is refused (seen with the real MPI operator and Kueue).
func waitForWorkers(s *executor.PartitionSpec) corev1.Container {
	script := `deadline=$((SECONDS + 300))
for h in "$@"; do
  until (exec 3<>"/dev/tcp/$h/` + strconv.Itoa(workerSSHPort) + `") 2>/dev/null; do
    if [ "$SECONDS" -ge "$deadline" ]; then echo "worker $h: sshd does not answer after 300 s" >&2; exit 1; fi
    sleep 1
  done
done`
	args := []string{"-c", script, "wait-for-workers"}
	for i := range s.Workers {
		// The hostnames the MPI operator's hostfile names.
		args = append(args, fmt.Sprintf("%s-worker-%d.%s.%s.svc", s.Name, i, s.Name, s.Namespace))
	}
	return corev1.Container{
		Name: "wait-for-workers", Image: s.Image, Command: []string{"bash"}, Args: args,
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("16Mi"),
		}},
	}
}

// defaulted applies the MPI operator's defaults to a copy, as its
// controller does before validating.
func defaulted(job *kubeflow.MPIJob) *kubeflow.MPIJob {
	j := job.DeepCopy()
	kubeflow.SetDefaults_MPIJob(j)
	return j
}

// State maps the MPIJob's conditions to a partition phase.
func (Executor) State(obj client.Object) executor.State {
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
		return executor.State{Phase: executor.Failed, FinishedAt: c.LastTransitionTime.Time, Reason: c.Reason, Message: c.Message}
	}
	if c := cond(kubeflow.JobSucceeded); c != nil {
		return executor.State{Phase: executor.Succeeded, FinishedAt: c.LastTransitionTime.Time, Reason: c.Reason, Message: c.Message}
	}
	// Worker pods that failed (a partition's workers run until it ends):
	// the MPI operator marks nothing then, and a launcher waiting for
	// ready workers would wait for ever.
	if w := job.Status.ReplicaStatuses[kubeflow.MPIReplicaTypeWorker]; w != nil && w.Failed > 0 {
		return executor.State{Phase: executor.Failed, FinishedAt: lastChange(job), Reason: "WorkersFailed",
			Message: fmt.Sprintf("%d worker pods failed", w.Failed)}
	}
	if ptr.Deref(job.Spec.RunPolicy.Suspend, false) || cond(kubeflow.JobSuspended) != nil {
		return executor.State{Phase: executor.Queued, Reason: "Suspended"}
	}
	if cond(kubeflow.JobRunning) != nil {
		return executor.State{Phase: executor.Running}
	}
	return executor.State{Phase: executor.Queued, Reason: "Starting"}
}

// lastChange is when the MPIJob last changed state, as its own status
// records it: the newest condition transition, else its start, else its
// creation. A partition whose workers failed carries no failure time, and
// the time of observation would restart its replacement backoff at every
// reconcile; this one stays put, so the backoff runs out.
func lastChange(job *kubeflow.MPIJob) time.Time {
	var t time.Time
	for _, c := range job.Status.Conditions {
		if c.LastTransitionTime.After(t) {
			t = c.LastTransitionTime.Time
		}
	}
	if t.IsZero() && job.Status.StartTime != nil {
		t = job.Status.StartTime.Time
	}
	if t.IsZero() {
		t = job.CreationTimestamp.Time
	}
	return t
}
