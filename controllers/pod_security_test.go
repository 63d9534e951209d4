package controllers

import (
	"testing"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers/executor/mpijob"
)

// Every pod the operator creates passes the restricted Pod Security
// Standard, as the API server's PodSecurity admission checks it (the
// same library), with the volume the MPI operator adds for SSH keys.
func TestPodsPassRestricted(t *testing.T) {
	eval, err := policy.NewEvaluator(policy.DefaultChecks(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, tmpl := range operatorPods(t) {
		spec := tmpl.Spec.DeepCopy()
		// What the MPI operator adds: its SSH key Secret, mode 0600.
		mode := int32(0o600)
		spec.Volumes = append(spec.Volumes, corev1.Volume{Name: "ssh-auth", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "x-ssh", DefaultMode: &mode}}})
		for _, r := range eval.EvaluatePod(api.LevelVersion{Level: api.LevelRestricted, Version: api.LatestVersion()}, &tmpl.ObjectMeta, spec) {
			if !r.Allowed {
				t.Errorf("%s pod: %s: %s", name, r.ForbiddenReason, r.ForbiddenDetail)
			}
		}
		for _, c := range spec.Containers {
			if c.SecurityContext == nil || c.SecurityContext.ReadOnlyRootFilesystem == nil || !*c.SecurityContext.ReadOnlyRootFilesystem {
				t.Errorf("%s pod: container %s has a writable root filesystem", name, c.Name)
			}
		}
		if spec.AutomountServiceAccountToken == nil || *spec.AutomountServiceAccountToken {
			t.Errorf("%s pod mounts a service account token it does not need", name)
		}
	}
}

// operatorPods are the pods the operator creates, with the specs'
// defaults: a partition's launcher and workers, the planning Job's pod
// and the database's.
func operatorPods(t *testing.T) map[string]corev1.PodTemplateSpec {
	t.Helper()
	job, err := mpijob.Executor{}.Build(NewPartitionSpec(aCampaign().partitions(1, 2, 2).request(0, 0)))
	if err != nil {
		t.Fatal(err)
	}
	mj := job.(*kubeflow.MPIJob)
	db := &v1alpha1.BlastDatabase{}
	db.Name, db.Namespace = "db", "ns"
	return map[string]corev1.PodTemplateSpec{
		"launcher": mj.Spec.MPIReplicaSpecs[kubeflow.MPIReplicaTypeLauncher].Template,
		"worker":   mj.Spec.MPIReplicaSpecs[kubeflow.MPIReplicaTypeWorker].Template,
		"plan":     mustPlanJob(t, aCampaign().build(), anySearch, db, "s3://b/c", "img").Spec.Template,
		"assemble": assembleJob(aCampaign().build(), db, "s3://b/c", "img", 600).Spec.Template,
		"shard":    shardingJob(db, "s3://b/src.fa", "s3://b/db", 2, "img").Spec.Template,
		"manifest": manifestJob(db, "s3://b/src.fa", "s3://b/db", 2, "img").Spec.Template,
		"blastdb":  blastdbJob(db, "s3://b/ncbi/nt", "s3://b/db", 2, "img").Spec.Template,
	}
}

// No pod the operator creates is BestEffort by default: every container
// requests CPU and memory.
func TestPodsNotBestEffort(t *testing.T) {
	for name, tmpl := range operatorPods(t) {
		for _, c := range append(tmpl.Spec.InitContainers, tmpl.Spec.Containers...) {
			if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() {
				t.Errorf("%s pod: container %s requests %v", name, c.Name, c.Resources.Requests)
			}
		}
	}
	// A database's own resources stay; what they leave out is requested.
	db := &v1alpha1.BlastDatabase{}
	db.Spec.Resources = corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: mustQuantity("8Gi")},
		Requests: corev1.ResourceList{corev1.ResourceEphemeralStorage: mustQuantity("20Gi")}}
	r := shardingJob(db, "s3://b/src.fa", "s3://b/db", 2, "img").Spec.Template.Spec.Containers[0].Resources
	if r.Requests.Cpu().String() != "250m" || !r.Requests.Memory().IsZero() || r.Limits.Memory().String() != "8Gi" ||
		r.Requests.StorageEphemeral().String() != "20Gi" {
		t.Errorf("shard pod resources %v: want the database's, and a CPU request", r)
	}
}
