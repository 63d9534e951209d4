package mpijob

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	corev1 "k8s.io/api/core/v1"

	"github.com/blastfleet/blastfleet/controllers/executor"
	"github.com/blastfleet/blastfleet/internal/engine/enginemetrics"
)

// aSpec is a partition of 2 workers of 2 slots, as the reconciler
// would compute it.
func aSpec() *executor.PartitionSpec {
	return &executor.PartitionSpec{
		Name: "camp-p1-r0", Namespace: "ns", Image: "worker:test",
		Labels: map[string]string{"app": "camp"}, PodLabels: map[string]string{"app": "camp"},
		Workers: 2, SlotsPerWorker: 2,
		Engine: executor.Engine{Ledger: "s3://b/ns/camp", PartitionID: "camp-p1-r0", Strategy: "merged", CacheDir: "/scratch/shards",
			Site: "cloud", Namespace: "ns", Campaign: "camp"},
		Env:   []corev1.EnvVar{{Name: "AWS_REGION", Value: "us-east-1"}},
		Ports: executor.MetricsPorts(3),
	}
}

// The launcher runs mpirun of the engine's argv over Ranks ranks, every
// rank the partition's id; the engine gets no --workers (its ranks are
// the workers).
func TestBuildRendersEngine(t *testing.T) {
	s := aSpec()
	obj, err := Executor{}.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	job := obj.(*kubeflow.MPIJob)
	l := job.Spec.MPIReplicaSpecs[kubeflow.MPIReplicaTypeLauncher].Template.Spec
	c := l.Containers[0]
	if c.Command[0] != "mpirun" || c.Args[1] != strconv.Itoa(int(s.Ranks())) {
		t.Errorf("launcher %q %q, want mpirun -np %d", c.Command, c.Args, s.Ranks())
	}
	want := s.Engine.Argv()
	if got := c.Args[len(c.Args)-len(want):]; !slices.Equal(got, want) || slices.Contains(c.Args, "--workers") {
		t.Errorf("launcher args %q, want them to end with %q and no --workers", c.Args, want)
	}
	if !slices.Contains(c.Env, corev1.EnvVar{Name: enginemetrics.PartitionEnv, Value: "camp-p1-r0"}) {
		t.Errorf("launcher env %v lacks the partition's id", c.Env)
	}
	// The launcher's wait reaches the workers' sshd on its port.
	if script := l.InitContainers[0].Args[1]; !strings.Contains(script, "/dev/tcp/$h/"+strconv.Itoa(workerSSHPort)) {
		t.Errorf("wait-for-workers script %q does not use the sshd port %d", script, workerSSHPort)
	}
	if l.InitContainers[0].SecurityContext == nil || l.Containers[0].SecurityContext == nil {
		t.Error("the launcher's containers are not restricted")
	}
}
