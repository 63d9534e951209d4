package controllers

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/utils/ptr"

	"github.com/blastfleet/blastfleet/controllers/executor"
	"github.com/blastfleet/blastfleet/controllers/executor/mpijob"
)

// The MPIJob wraps the spec: mpirun runs its command over its ranks and
// forwards its environment by name; workers carry its ports and volumes.
func TestMPIJobWrapsSpec(t *testing.T) {
	for _, tc := range []struct {
		name     string
		campaign *campaignBuilder
		np       string // every slot searches, and the master is one rank more
	}{
		{"plain", aCampaign(), "3"},
		{"slots", aCampaign().partitions(1, 3, 4), "13"},
		{"one slot", aCampaign().partitions(1, 1, 1), "2"},
		{"kueue", aCampaign().queue("team"), "3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewPartitionSpec(tc.campaign.request(1, 0))
			before := *s
			before.Env = slices.Clone(s.Env)
			obj, err := mpijob.Executor{TTLSecondsAfterFinished: 60}.Build(s)
			if err != nil {
				t.Fatal(err)
			}
			if !equality.Semantic.DeepEqual(s.Env, before.Env) {
				t.Errorf("Build changed the spec's env: %v", s.Env)
			}
			job := obj.(*kubeflow.MPIJob)
			if job.Name != s.Name || job.Namespace != s.Namespace || !equality.Semantic.DeepEqual(job.Labels, s.Labels) {
				t.Errorf("MPIJob %s/%s labels %v, want the spec's", job.Namespace, job.Name, job.Labels)
			}
			launcher := job.Spec.MPIReplicaSpecs[kubeflow.MPIReplicaTypeLauncher].Template.Spec.Containers[0]
			args := strings.Join(append(launcher.Command, launcher.Args...), " ")
			if want := "mpirun -np " + tc.np + " --oversubscribe --bind-to none "; !strings.HasPrefix(args, want) {
				t.Errorf("launcher %q does not start with %q", args, want)
			}
			if want := " " + strings.Join(s.Engine.Argv(), " "); !strings.HasSuffix(args, want) {
				t.Errorf("launcher %q does not end with the engine's command %q", args, want)
			}
			for _, e := range append(s.EnvFor(s.Engine), mpijob.OpenMPIEnv...) {
				if !strings.Contains(args, "-x "+e.Name+" ") {
					t.Errorf("launcher %q does not forward %s", args, e.Name)
				}
			}
			// Every rank runs Open MPI as the pods need it (the ob1 PML,
			// no ptrace copies, yielding when idle: the master shares a
			// core), whatever the image says.
			if !slices.Contains(launcher.Env, corev1.EnvVar{Name: "OMPI_MCA_mpi_yield_when_idle", Value: "1"}) {
				t.Errorf("launcher env %v lacks OMPI_MCA_mpi_yield_when_idle=1", launcher.Env)
			}
			for _, want := range mpijob.OpenMPIEnv {
				if !slices.Contains(launcher.Env, want) {
					t.Errorf("launcher env %v lacks %s=%s", launcher.Env, want.Name, want.Value)
				}
			}
			ws := job.Spec.MPIReplicaSpecs[kubeflow.MPIReplicaTypeWorker]
			worker := ws.Template.Spec
			if ptr.Deref(ws.Replicas, 0) != s.Workers || ptr.Deref(job.Spec.SlotsPerWorker, 0) != s.SlotsPerWorker {
				t.Errorf("%d workers of %d slots, want %d of %d", ptr.Deref(ws.Replicas, 0), ptr.Deref(job.Spec.SlotsPerWorker, 0), s.Workers, s.SlotsPerWorker)
			}
			if !equality.Semantic.DeepEqual(worker.Containers[0].Ports[1:], s.Ports) || worker.Containers[0].Ports[0].Name != "ssh" {
				t.Errorf("worker ports %v, want ssh and %v", worker.Containers[0].Ports, s.Ports)
			}
			if len(worker.Volumes) < len(s.Volumes) || !equality.Semantic.DeepEqual(worker.Volumes[:len(s.Volumes)], s.Volumes) ||
				len(worker.Containers[0].VolumeMounts) < len(s.VolumeMounts) || !equality.Semantic.DeepEqual(worker.Containers[0].VolumeMounts[:len(s.VolumeMounts)], s.VolumeMounts) {
				t.Errorf("worker volumes %v mounted %v, want the spec's", worker.Volumes, worker.Containers[0].VolumeMounts)
			}
			if ptr.Deref(job.Spec.RunPolicy.Suspend, false) != s.Suspended || ptr.Deref(job.Spec.RunPolicy.BackoffLimit, -1) != 0 {
				t.Errorf("runPolicy %+v: want suspend %v and backoffLimit 0", job.Spec.RunPolicy, s.Suspended)
			}
		})
	}
}

// The MPI operator never requeues an invalid MPIJob, so Build refuses one.
func TestMPIJobInvalid(t *testing.T) {
	s := NewPartitionSpec(aCampaign().request(0, 0))
	s.Name = strings.Repeat("x", 300)
	if _, err := (mpijob.Executor{}).Build(s); err == nil || !strings.Contains(err.Error(), "invalid MPIJob") {
		t.Errorf("Build of a too long name: %v, want an invalid MPIJob error", err)
	}
}

// Workers run the worker image's own CMD, given explicitly: the MPI
// operator replaces an empty command with "sshd -De", which reads the
// system's sshd_config and exits without a host key (seen on the real
// MPI operator; the local runner never runs the command).
func TestWorkerRunsImageCMD(t *testing.T) {
	b, err := os.ReadFile("../images/worker/Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	var cmd []string
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "CMD "); ok {
			if err := json.Unmarshal([]byte(rest), &cmd); err != nil {
				t.Fatalf("CMD %s: %v", rest, err)
			}
		}
	}
	obj, err := mpijob.Executor{}.Build(NewPartitionSpec(aCampaign().request(0, 0)))
	if err != nil {
		t.Fatal(err)
	}
	got := obj.(*kubeflow.MPIJob).Spec.MPIReplicaSpecs[kubeflow.MPIReplicaTypeWorker].Template.Spec.Containers[0].Command
	if len(cmd) == 0 || !slices.Equal(got, cmd) {
		t.Errorf("worker command %q, the image's CMD is %q", got, cmd)
	}
}

// An MPIJob whose worker pods failed before its launcher started is
// failed: the MPI operator keeps it "Created" for ever (its launcher waits
// for ready workers), so the operator must replace it itself.
func TestMPIJobWithFailedWorkersIsFailed(t *testing.T) {
	job := &kubeflow.MPIJob{}
	job.Status.Conditions = []kubeflow.JobCondition{{Type: kubeflow.JobCreated, Status: "True"}}
	if st := (mpijob.Executor{}).State(job); st.Phase != executor.Queued {
		t.Fatalf("a created MPIJob is %s, want Queued", st.Phase)
	}
	job.Status.ReplicaStatuses = map[kubeflow.MPIReplicaType]*kubeflow.ReplicaStatus{kubeflow.MPIReplicaTypeWorker: {Failed: 2}}
	if st := (mpijob.Executor{}).State(job); st.Phase != executor.Failed || st.Reason != "WorkersFailed" {
		t.Errorf("an MPIJob with 2 failed workers is %s (%s), want Failed (WorkersFailed)", st.Phase, st.Reason)
	}
}

// The launcher waits for every worker's sshd before mpirun starts: an
// MPIJob Kueue admits gets its launcher with its workers, and mpirun's
// first ssh would be refused (the real MPI operator showed it).
func TestLauncherWaitsForWorkers(t *testing.T) {
	s := NewPartitionSpec(aCampaign().partitions(1, 3, 1).request(0, 0))
	obj, err := mpijob.Executor{}.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	l := obj.(*kubeflow.MPIJob).Spec.MPIReplicaSpecs[kubeflow.MPIReplicaTypeLauncher].Template.Spec
	if len(l.InitContainers) != 1 {
		t.Fatalf("launcher init containers %v, want one that waits for the workers", l.InitContainers)
	}
	args := strings.Join(l.InitContainers[0].Args, " ")
	for i := range 3 {
		host := fmt.Sprintf("%s-worker-%d.%s.%s.svc", s.Name, i, s.Name, s.Namespace)
		if !strings.Contains(args, host) {
			t.Errorf("the launcher does not wait for %s: %s", host, args)
		}
	}
}
