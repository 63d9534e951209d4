package kubecmd

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/operator/argowf"
)

// testArgo: a campaign of executor argo, submitted with --executor argo,
// has its partitions listed as Argo Workflows by status and delete
// --wait, and logs reads a worker step's pod, never sending the user to
// the MPI operator.
func testArgo(t *testing.T, f *kubeFixture) {
	f.mustCLI("submit", "--name", "ar", "--database", fxDB, "--queries", "s3://inputs/q.fa", "--program", "blastp",
		"--executor", "argo", "--workers", "2")
	c := f.get("default", "ar")
	if c.Spec.Executor != v1alpha1.ExecutorArgo {
		t.Fatalf("submit --executor argo: spec.executor %q", c.Spec.Executor)
	}
	if _, _, err := f.cli("submit", "--name", "ar-bad", "--database", fxDB, "--queries", "s3://inputs/q.fa", "--program", "blastp",
		"--executor", "slurm"); err == nil || !strings.Contains(err.Error(), "spec.executor") {
		t.Errorf("--executor slurm: %v, want the API server's refusal naming spec.executor", err)
	}

	// No Workflow yet: logs says so, and nothing about MPI.
	_, _, err := f.cli("logs", "ar")
	if err == nil || !strings.Contains(err.Error(), "campaign ar has no partitions now") || strings.Contains(err.Error(), "MPI") {
		t.Errorf("logs before any Workflow: %v", err)
	}

	// The operator's Workflow, Running with a step's pod running.
	wf := &unstructured.Unstructured{Object: map[string]any{
		"spec": map[string]any{"entrypoint": "partition", "templates": []any{map[string]any{"name": "partition"}}},
		"status": map[string]any{"phase": "Running", "nodes": map[string]any{
			"ar-p0-r0-1": map[string]any{"type": "Pod", "phase": "Running"}}},
	}}
	wf.SetGroupVersionKind(argowf.Workflow)
	wf.SetName("ar-p0-r0")
	wf.SetNamespace("default")
	wf.SetLabels(map[string]string{labelCampaign: "ar", labelPartition: "0", labelRestart: "0"})
	wf.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: v1alpha1.GroupVersion.String(), Kind: "SearchCampaign", Name: "ar",
		UID: c.UID, Controller: ptr.To(true)}})
	f.create(wf)

	out := f.mustCLI("status", "ar")
	if !strings.Contains(out, "Partition jobs (Argo Workflows; a worker step's output: blastfleet logs ar --partition N --worker W)") ||
		!strings.Contains(out, "ar-p0-r0") || !strings.Contains(out, "Running") {
		t.Errorf("status of an argo campaign:\n%s", out)
	}

	// A Workflow with no step pods yet, then worker 1's pods: the latest
	// attempt (Argo's retry) is read, from its "main" container.
	if _, _, err := f.cli("logs", "ar", "--worker", "1"); err == nil ||
		!strings.Contains(err.Error(), "partition 0 (Workflow ar-p0-r0, Running) has no pod of worker step 1; its step pods' workers: none now") {
		t.Errorf("logs with no step pod: %v", err)
	}
	step := func(name, node string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default",
				Labels:      map[string]string{labelArgoWorkflow: "ar-p0-r0", labelCampaign: "ar"},
				Annotations: map[string]string{annotationArgoNode: node}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "worker:test"}, {Name: "wait", Image: "argoexec:test"}}},
		}
	}
	f.create(step("ar-p0-r0-engine-111", "ar-p0-r0[0].worker(0:0)(0)"))
	f.create(step("ar-p0-r0-engine-222", "ar-p0-r0[0].worker(1:1)(0)"))
	if _, _, err := f.cli("logs", "ar", "--worker", "2"); err == nil || !strings.Contains(err.Error(), "its step pods' workers: [0 1]") {
		t.Errorf("logs --worker 2 of 2 workers: %v", err)
	}
	_, _, err = f.cli("logs", "ar", "--worker", "1")
	if err == nil || !strings.Contains(err.Error(), "pod ar-p0-r0-engine-222 (worker step 1 of partition 0, Workflow ar-p0-r0) is not scheduled yet") {
		t.Errorf("logs --worker 1, unscheduled: %v", err)
	}
	// Argo's retry of the step, scheduled: its pod is read. The API
	// server asks the node's kubelet, which envtest has not; the error
	// names the pod, the step and the Workflow.
	scheduled := step("ar-p0-r0-engine-333", "ar-p0-r0[0].worker(1:1)(1)")
	scheduled.Spec.NodeName = "node-1"
	f.create(scheduled)
	_, _, err = f.cli("logs", "ar", "--worker", "1")
	if err == nil || !strings.Contains(err.Error(), "log of pod ar-p0-r0-engine-333 (worker step 1 of partition 0, Workflow ar-p0-r0)") ||
		strings.Contains(err.Error(), "MPI") {
		t.Errorf("logs --worker 1: %v", err)
	}

	// delete --wait waits for the Workflow too: it goes (as the garbage
	// collector would take it) and delete returns.
	done := make(chan error, 1)
	go func() {
		_, _, err := f.cli("delete", "ar", "--wait", "--timeout", "25s")
		done <- err
	}()
	// The campaign goes first (no finalizer); then the Workflow.
	deadline := time.Now().Add(10 * time.Second)
	for {
		var cur v1alpha1.SearchCampaign
		if err := f.c.Get(context.Background(), client.ObjectKey{Namespace: "default", Name: "ar"}, &cur); err != nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	select {
	case err := <-done:
		t.Fatalf("delete --wait returned while the Workflow was there: %v", err)
	default:
	}
	if err := f.c.Delete(context.Background(), wf); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("delete --wait: %v", err)
		}
	case <-time.After(40 * time.Second): // past --timeout and f.cli's own bound
		t.Fatal("delete --wait did not return once the Workflow was gone")
	}
}
