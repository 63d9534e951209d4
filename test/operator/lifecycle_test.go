package operator

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	"github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/validation"
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers"
	"github.com/blastfleet/blastfleet/internal/engine/enginemetrics"
)

// TestCampaignLifecycle walks one campaign through planning, partitions,
// a failed partition, an operator restart, scaling, suspend and resume,
// and completion read from a real ledger in MinIO.
func TestCampaignLifecycle(t *testing.T) {
	t.Parallel() // its own API server, MinIO and operator
	h := newHarness(t)
	ctx := context.Background()
	h.readyDatabase("sprot", v1alpha1.DatabaseProtein)
	h.putQueries("life")
	c := h.campaign("life", "sprot", 2)
	h.create(c)

	// Planning runs as a Job in the worker image, with credentials from
	// the Secret by reference.
	h.waitPhase("life", v1alpha1.CampaignPlanning, 20*time.Second)
	var plan batchv1.Job
	if err := h.c.Get(ctx, client.ObjectKey{Namespace: h.ns, Name: "life-plan"}, &plan); err != nil {
		t.Fatalf("planning Job: %v", err)
	}
	args := strings.Join(plan.Spec.Template.Spec.Containers[0].Args, " ")
	for _, want := range []string{"campaign plan", "--queries s3://blastfleet/queries/life.fa", "--database s3://blastfleet/databases/default/sprot",
		`--search-json {"program":"blastp",`, "--chunk-queries 2", "--output s3://blastfleet/campaigns/default/life"} {
		if !strings.Contains(args, want) {
			t.Errorf("planning Job args %q lack %q", args, want)
		}
	}
	h.noSecretsIn(&plan)
	if len(h.partitions("life")) != 0 {
		t.Fatal("partitions created before the plan exists")
	}

	// The plan appears (the Job wrote it): partitions start.
	l := h.writePlan("life", "sprot", 3)
	parts := h.waitPartitions("life", "life-p0-r0", "life-p1-r0")
	for _, job := range parts {
		h.checkPartition(job, c)
	}
	running := h.waitPhase("life", v1alpha1.CampaignRunning, 10*time.Second)
	if running.Status.Chunks.Total != 2 || running.Status.Queries.Total != 3 {
		t.Errorf("status chunks %+v queries %+v, want 2 chunks and 3 queries from the ledger", running.Status.Chunks, running.Status.Queries)
	}
	if running.Status.StartTime == nil {
		t.Error("status.startTime not set")
	}

	// A failed partition is replaced, and the failed one removed.
	h.setJobCondition(parts["life-p1-r0"], kubeflow.JobFailed, "BackoffLimitExceeded", "launcher exited with code 1")
	h.waitPartitions("life", "life-p0-r0", "life-p1-r1")
	h.eventually("replaced count", 10*time.Second, func() (bool, string) {
		s := h.get("life").Status.Partitions
		return s.Replaced == 1, "replaced " + itoa(s.Replaced)
	})

	// The operator restarts: nothing is created twice, nothing lost.
	h.stopOperator()
	h.startOperator()
	time.Sleep(5 * poll)
	h.waitPartitions("life", "life-p0-r0", "life-p1-r1")

	// Scale up, then down.
	h.update("life", func(c *v1alpha1.SearchCampaign) { c.Spec.Partitions.Count = 3 })
	h.waitPartitions("life", "life-p0-r0", "life-p1-r1", "life-p2-r0")
	h.update("life", func(c *v1alpha1.SearchCampaign) { c.Spec.Partitions.Count = 1 })
	h.waitPartitions("life", "life-p0-r0")

	// Suspend removes the partitions and keeps the ledger; resume continues.
	h.update("life", func(c *v1alpha1.SearchCampaign) { c.Spec.Suspend = true })
	h.waitPhase("life", v1alpha1.CampaignSuspended, 10*time.Second)
	h.waitPartitions("life")
	if _, err := l.Status(ctx); err != nil {
		t.Fatalf("ledger after suspend: %v", err)
	}
	h.update("life", func(c *v1alpha1.SearchCampaign) { c.Spec.Suspend = false })
	parts = h.waitPartitions("life", "life-p0-r0")
	h.waitPhase("life", v1alpha1.CampaignRunning, 10*time.Second)

	// Every chunk committed and the partition done without assembling:
	// the assembly Job assembles, then Complete, with the result.
	h.commitAll(l)
	h.setJobCondition(parts["life-p0-r0"], kubeflow.JobSucceeded, "Succeeded", "")
	asmJob := h.waitAssembleJob("life")
	h.runJob(asmJob)
	h.setBatchJobCondition(asmJob, batchv1.JobComplete, "Completed", "")
	done := h.waitPhase("life", v1alpha1.CampaignComplete, 20*time.Second)
	if done.Status.Result != "s3://blastfleet/campaigns/default/life/result" {
		t.Errorf("status.result = %q", done.Status.Result)
	}
	if !meta.IsStatusConditionTrue(done.Status.Conditions, v1alpha1.ConditionComplete) || done.Status.Progress != "100%" || done.Status.CompletionTime == nil {
		t.Errorf("completed status: %+v", done.Status)
	}
	var out strings.Builder
	if err := l.StreamResults(ctx, &out); err != nil || strings.Count(out.String(), "\n") != 3 {
		t.Errorf("result: %q, %v", out.String(), err)
	}
	if sum := sha256.Sum256([]byte(out.String())); done.Status.ResultSHA256 != hex.EncodeToString(sum[:]) || done.Status.ResultBytes != int64(out.Len()) {
		t.Errorf("status.resultSHA256 %q (%d bytes), want %x (%d bytes)", done.Status.ResultSHA256, done.Status.ResultBytes, sum, out.Len())
	}
}

// checkPartition checks an MPIJob as the MPI operator will see it.
func (h *harness) checkPartition(job *kubeflow.MPIJob, c *v1alpha1.SearchCampaign) {
	h.t.Helper()
	j := job.DeepCopy()
	kubeflow.SetDefaults_MPIJob(j)
	if errs := validation.ValidateMPIJob(j); len(errs) > 0 {
		h.t.Errorf("%s fails the MPI operator's validation: %v", job.Name, errs.ToAggregate())
	}
	if !metav1IsControlledBy(job, c.Name) {
		h.t.Errorf("%s is not controlled by campaign %s: %+v", job.Name, c.Name, job.OwnerReferences)
	}
	for _, l := range []string{controllers.LabelCampaign, controllers.LabelPartition, controllers.LabelRestart, controllers.LabelGeneration} {
		if job.Labels[l] == "" {
			h.t.Errorf("%s lacks label %s: %v", job.Name, l, job.Labels)
		}
	}
	if job.Spec.LauncherCreationPolicy != kubeflow.LauncherCreationPolicyWaitForWorkersReady {
		h.t.Errorf("%s launcherCreationPolicy %q", job.Name, job.Spec.LauncherCreationPolicy)
	}
	launcher := job.Spec.MPIReplicaSpecs[kubeflow.MPIReplicaTypeLauncher].Template.Spec.Containers[0]
	args := strings.Join(append(launcher.Command, launcher.Args...), " ")
	// Every slot searches; the master is one rank more.
	np := fmt.Sprintf("mpirun -np %d --oversubscribe ", c.Spec.Partitions.Workers*c.Spec.Partitions.SlotsPerWorker+1)
	// The worker pods' memory (below) holds the database per slot:
	// that is each rank's cache.
	for _, want := range []string{np, "blastfleet-engine --campaign s3://blastfleet/campaigns/default/" + c.Name, "--partition-id " + job.Name, "-x AWS_ACCESS_KEY_ID",
		"-x OMPI_MCA_mpi_yield_when_idle", "--cache-bytes 1048576"} {
		if !strings.Contains(args, want) {
			h.t.Errorf("%s launcher %q lacks %q", job.Name, args, want)
		}
	}
	// Every rank learns its metrics port and its run's labels through
	// mpirun -x, and the worker pods declare the ports the PodMonitor scrapes.
	env := map[string]string{}
	for _, e := range launcher.Env {
		env[e.Name] = e.Value
	}
	for name, want := range map[string]string{enginemetrics.PortBaseEnv: "9090", enginemetrics.NamespaceEnv: c.Namespace,
		enginemetrics.CampaignEnv: c.Name, enginemetrics.PartitionEnv: job.Name} {
		if env[name] != want || !strings.Contains(args, "-x "+name) {
			h.t.Errorf("%s launcher: %s=%q (forwarded: %v), want %q forwarded", job.Name, name, env[name], strings.Contains(args, "-x "+name), want)
		}
	}
	worker := job.Spec.MPIReplicaSpecs[kubeflow.MPIReplicaTypeWorker].Template.Spec.Containers[0]
	ports := map[string]int32{}
	for _, p := range worker.Ports {
		ports[p.Name] = p.ContainerPort
	}
	if ports["metrics"] != 9090 || len(ports) != 2+int(c.Spec.Partitions.SlotsPerWorker) {
		h.t.Errorf("%s worker ports %v, want ssh and one metrics port per slot, and the master's, from 9090", job.Name, ports)
	}
	// Sized from the slots and the database: a core per slot, and memory
	// for the database per slot (dbBytes) with BLAST's 512Mi each and the
	// master's 256Mi, rounded up to a MiB. Never BestEffort.
	if r := worker.Resources; r.Requests.Cpu().Value() != int64(c.Spec.Partitions.SlotsPerWorker) || !r.Limits.Cpu().IsZero() ||
		r.Requests.Memory().String() != "769Mi" || r.Limits.Memory().String() != "769Mi" {
		h.t.Errorf("%s worker resources %v, want 1 CPU requested and 769Mi", job.Name, r)
	}
	if launcher.Image != workerImage {
		h.t.Errorf("%s image %q, want the operator's default %q", job.Name, launcher.Image, workerImage)
	}
	if w := ptr.Deref(job.Spec.MPIReplicaSpecs[kubeflow.MPIReplicaTypeWorker].Replicas, 0); w != c.Spec.Partitions.Workers {
		h.t.Errorf("%s has %d workers, want %d", job.Name, w, c.Spec.Partitions.Workers)
	}
	h.noSecretsIn(job)
}

// noSecretsIn fails if the object holds the credentials' values.
func (h *harness) noSecretsIn(obj any) {
	h.t.Helper()
	data, _ := json.Marshal(obj)
	for _, secret := range []string{h.minio.AccessKey, h.minio.SecretKey} {
		if strings.Contains(string(data), secret) {
			h.t.Errorf("%T holds a credential's value", obj)
		}
	}
	if !strings.Contains(string(data), `"secretKeyRef":{"name":"`+secretName+`"`) {
		h.t.Errorf("%T does not reference Secret %s", obj, secretName)
	}
}

func (h *harness) update(name string, mutate func(*v1alpha1.SearchCampaign)) {
	h.t.Helper()
	h.eventually("update of "+name, 10*time.Second, func() (bool, string) {
		c := h.get(name)
		mutate(c)
		err := h.c.Update(context.Background(), c)
		if err != nil {
			return false, err.Error()
		}
		return true, ""
	})
}

func metav1IsControlledBy(obj client.Object, owner string) bool {
	return slices.ContainsFunc(obj.GetOwnerReferences(), func(r metav1OwnerRef) bool {
		return r.Kind == "SearchCampaign" && r.Name == owner && ptr.Deref(r.Controller, false) && ptr.Deref(r.BlockOwnerDeletion, false)
	})
}

// windDown is the operator's grace for a finished campaign's partitions.
const windDown = 3 * time.Second

// TestStopsPartitionsWhenAssembled: once the ledger is complete and the
// result assembled, partitions still running get the wind-down to exit
// on their own, then are stopped.
func TestStopsPartitionsWhenAssembled(t *testing.T) {
	t.Parallel() // its own API server, MinIO and operator
	h := newHarness(t)
	ctx := context.Background()
	h.readyDatabase("sprot", v1alpha1.DatabaseProtein)
	h.putQueries("tail")
	h.create(h.campaign("tail", "sprot", 2))
	l := h.writePlan("tail", "sprot", 3)
	parts := h.waitPartitions("tail", "tail-p0-r0", "tail-p1-r0")
	for _, j := range parts {
		h.setJobCondition(j, kubeflow.JobRunning, "Running", "")
	}
	h.commitAll(l)
	time.Sleep(5 * poll)
	if n := len(h.partitions("tail")); n != 2 {
		t.Fatalf("%d partitions left before the result was assembled, want both kept to assemble it", n)
	}
	if _, err := l.Assemble(ctx); err != nil { // as the partition that saw the end does
		t.Fatal(err)
	}
	done := h.waitPhase("tail", v1alpha1.CampaignComplete, 10*time.Second)
	if n := len(h.partitions("tail")); n != 2 && time.Since(done.Status.CompletionTime.Time) < windDown-time.Second {
		t.Errorf("%d partitions right after completion, want both left to wind down", n)
	}
	h.waitPartitions("tail")
	if since := time.Since(done.Status.CompletionTime.Time); since < windDown-time.Second {
		t.Errorf("partitions deleted %v after completion, before the %v wind-down", since, windDown)
	}
}
