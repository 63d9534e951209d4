package controllers

import (
	"slices"
	"strings"
	"testing"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
)

func testCampaign() *v1alpha1.SearchCampaign {
	return &v1alpha1.SearchCampaign{
		ObjectMeta: metav1.ObjectMeta{Name: "run1", Namespace: "lab"},
		Spec: v1alpha1.SearchCampaignSpec{
			OutputStrategy: "worker-merge",
			Partitions:     v1alpha1.Partitions{Count: 2, Workers: 3, SlotsPerWorker: 2},
			Output:         v1alpha1.ObjectStorage{Bucket: "work", Prefix: "campaigns", CredentialsSecretRef: &v1alpha1.CredentialsSecretRef{Name: "s3"}},
		},
	}
}

// The command is the executor-independent part: the engine against the
// campaign's ledger, named for the partition, with its metrics labels.
func TestPartitionCommand(t *testing.T) {
	cmd := NewPartitionCommand(&PartitionRequest{Campaign: testCampaign(), Index: 1, Restart: 2, Location: "s3://work/campaigns/lab/run1"})
	if cmd.Name != "run1-p1-r2" || cmd.Ranks != 6 || cmd.Scratch != scratchDir {
		t.Errorf("name %q ranks %d scratch %q", cmd.Name, cmd.Ranks, cmd.Scratch)
	}
	want := []string{"blastfleet-engine", "--campaign", "s3://work/campaigns/lab/run1", "--partition-id", "run1-p1-r2",
		"--strategy", "worker-merge", "--cache-dir", scratchDir + "/shards"}
	if !slices.Equal(cmd.Engine, want) {
		t.Errorf("engine argv %q, want %q", cmd.Engine, want)
	}
	env := map[string]string{}
	for _, e := range cmd.Env {
		env[e.Name] = e.Value
	}
	if env["BLASTFLEET_PARTITION"] != "run1-p1-r2" || env["BLASTFLEET_CAMPAIGN"] != "run1" || env["BLASTFLEET_NAMESPACE"] != "lab" {
		t.Errorf("metrics labels missing from the environment: %v", env)
	}
	if len(cmd.Ports) != 2 || cmd.Ports[0].Name != "metrics" || cmd.Ports[1].Name != "metrics-1" {
		t.Errorf("ports %+v, want one per slot", cmd.Ports)
	}
}

// The MPIJob adapter only wraps the command: mpirun of exactly its argv,
// forwarding exactly its environment.
func TestMPIJobWrapsCommand(t *testing.T) {
	req := &PartitionRequest{Campaign: testCampaign(), Index: 0, Restart: 0, Location: "s3://work/campaigns/lab/run1", Image: "blastfleet-worker:test"}
	cmd := NewPartitionCommand(req)
	obj, err := MPIJobExecutor{}.Build(req)
	if err != nil {
		t.Fatal(err)
	}
	job := obj.(*kubeflow.MPIJob)
	launcher := job.Spec.MPIReplicaSpecs[kubeflow.MPIReplicaTypeLauncher].Template.Spec.Containers[0]
	if !slices.Equal(launcher.Args[len(launcher.Args)-len(cmd.Engine):], cmd.Engine) {
		t.Errorf("launcher args %q do not end with the engine's %q", launcher.Args, cmd.Engine)
	}
	args := strings.Join(launcher.Args, " ")
	if !strings.HasPrefix(args, "-np 6 --bind-to none") {
		t.Errorf("launcher args %q", args)
	}
	for _, e := range cmd.Env {
		if !strings.Contains(args, "-x "+e.Name) {
			t.Errorf("mpirun does not forward %s: %q", e.Name, args)
		}
	}
	if len(launcher.Env) != len(cmd.Env) {
		t.Errorf("launcher env has %d variables, the command %d", len(launcher.Env), len(cmd.Env))
	}
	worker := job.Spec.MPIReplicaSpecs[kubeflow.MPIReplicaTypeWorker].Template.Spec.Containers[0]
	if len(worker.Ports) != 1+len(cmd.Ports) || worker.VolumeMounts[0].MountPath != cmd.Scratch {
		t.Errorf("worker ports %+v, mounts %+v", worker.Ports, worker.VolumeMounts)
	}
}
