package operator

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers"
	"github.com/blastfleet/blastfleet/internal/argowf"
)

// workflows are the campaign's Argo Workflows by name.
func (h *harness) workflows(campaign string) map[string]*unstructured.Unstructured {
	h.t.Helper()
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(argowf.WorkflowList)
	if err := h.c.List(context.Background(), list, client.InNamespace(h.ns), client.MatchingLabels{controllers.LabelCampaign: campaign}); err != nil {
		h.t.Fatal(err)
	}
	m := map[string]*unstructured.Unstructured{}
	for i := range list.Items {
		if list.Items[i].GetDeletionTimestamp() == nil {
			m[list.Items[i].GetName()] = &list.Items[i]
		}
	}
	return m
}

func (h *harness) waitWorkflows(campaign string, want ...string) map[string]*unstructured.Unstructured {
	h.t.Helper()
	var got map[string]*unstructured.Unstructured
	h.eventually("Workflows "+strings.Join(want, ","), 20*time.Second, func() (bool, string) {
		got = h.workflows(campaign)
		var names []string
		for n := range got {
			names = append(names, n)
		}
		return strings.Join(sortStrings(names), ",") == strings.Join(sortStrings(want), ","), strings.Join(names, ",")
	})
	return got
}

// setWorkflowStatus writes a Workflow's status as Argo's controller
// would (the CRD has no status subresource).
func (h *harness) setWorkflowStatus(wf *unstructured.Unstructured, status map[string]any) {
	h.t.Helper()
	h.eventually("status of Workflow "+wf.GetName(), 10*time.Second, func() (bool, string) {
		cur := &unstructured.Unstructured{}
		cur.SetGroupVersionKind(argowf.Workflow)
		if err := h.c.Get(context.Background(), client.ObjectKeyFromObject(wf), cur); err != nil {
			return false, err.Error()
		}
		cur.Object["status"] = status
		if err := h.c.Update(context.Background(), cur); err != nil {
			return false, err.Error()
		}
		return true, ""
	})
}

// TestArgoExecutor: a campaign with spec.executor argo runs as Argo
// Workflows in the real API server (Argo's CRD): created owned by the
// campaign with the partition's labels, the executor's ServiceAccount
// made in the namespace, read back from status.phase and status.nodes
// (Queued until a step's pod runs, then Running), a Failed Workflow
// replaced as a failed MPIJob is, and the campaign completing from the
// ledger. No MPIJob is created.
func TestArgoExecutor(t *testing.T) {
	h := newHarness(t)
	h.readyDatabase("sprot", v1alpha1.DatabaseProtein)
	h.putQueries("wf")
	c := h.campaign("wf", "sprot", 1)
	c.Spec.Executor = v1alpha1.ExecutorArgo
	h.create(c)
	l := h.writePlan("wf", "sprot", 4)
	wf := h.waitWorkflows("wf", "wf-p0-r0")["wf-p0-r0"]
	if !metav1IsControlledBy(wf, "wf") {
		t.Errorf("Workflow owners %v, want the campaign as controller", wf.GetOwnerReferences())
	}
	if wf.GetLabels()[controllers.LabelPartition] != "0" || wf.GetLabels()[controllers.LabelRestart] != "0" {
		t.Errorf("Workflow labels %v", wf.GetLabels())
	}
	// The engine's container, typed, as the pod will have it.
	tmpls, _, _ := unstructured.NestedSlice(wf.Object, "spec", "templates")
	var engine corev1.Container
	if len(tmpls) != 2 {
		t.Fatalf("Workflow templates %v", tmpls)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(tmpls[1].(map[string]any)["container"].(map[string]any), &engine); err != nil {
		t.Fatal(err)
	}
	h.noSecretsIn(engine)
	if n := len(h.partitions("wf")); n != 0 {
		t.Errorf("%d MPIJobs created for a campaign of executor argo", n)
	}
	ctx := context.Background()
	key := client.ObjectKey{Namespace: h.ns, Name: argowf.ExecutorServiceAccount}
	for _, o := range []client.Object{&corev1.ServiceAccount{}, &rbacv1.Role{}, &rbacv1.RoleBinding{}} {
		if err := h.c.Get(ctx, key, o); err != nil {
			t.Errorf("Argo's executor %T: %v", o, err)
		}
	}
	if got := h.get("wf").Status.Partitions; got.Queued != 1 || got.Running != 0 {
		t.Errorf("partitions %+v before Argo ran anything, want 1 queued", got)
	}

	h.setWorkflowStatus(wf, map[string]any{"phase": "Running", "nodes": map[string]any{
		"wf-p0-r0":   map[string]any{"type": "Steps", "phase": "Running"},
		"wf-p0-r0-1": map[string]any{"type": "Pod", "phase": "Running"}}})
	h.eventually("partition Running", 10*time.Second, func() (bool, string) {
		p := h.get("wf").Status.Partitions
		return p.Running == 1, strings.TrimSpace(h.get("wf").Status.PartitionsRatio)
	})

	h.setWorkflowStatus(wf, map[string]any{"phase": "Failed", "message": "child 'wf-p0-r0-1' failed", "finishedAt": time.Now().UTC().Format(time.RFC3339)})
	h.waitWorkflows("wf", "wf-p0-r1")
	got := h.get("wf")
	if got.Status.Partitions.Replaced != 1 {
		t.Errorf("replaced %d, want 1", got.Status.Partitions.Replaced)
	}
	h.waitEvent("wf", "PartitionReplaced", corev1.EventTypeWarning, "child 'wf-p0-r0-1' failed")

	// Every chunk committed and the Workflow done: Complete.
	h.commitAll(l)
	r1 := h.waitWorkflows("wf", "wf-p0-r1")["wf-p0-r1"]
	h.setWorkflowStatus(r1, map[string]any{"phase": "Succeeded", "finishedAt": time.Now().UTC().Format(time.RFC3339)})
	done := h.waitPhase("wf", v1alpha1.CampaignComplete, 20*time.Second)
	if done.Status.Result == "" || done.Status.Progress != "100%" {
		t.Errorf("completed status: %+v", done.Status)
	}
}

// TestArgoExecutorValidation: the API refuses executor argo with a Kueue
// queue, an executor changed after creation, and an unknown executor;
// without the field the campaign is an MPIJob one.
func TestArgoExecutorValidation(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	c := h.campaign("queued", "sprot", 1)
	c.Spec.Executor, c.Spec.QueueName = v1alpha1.ExecutorArgo, "team"
	if err := h.c.Create(ctx, c); err == nil || !strings.Contains(err.Error(), "queueName needs executor mpijob") {
		t.Errorf("argo with a queue: %v", err)
	}
	c = h.campaign("other", "sprot", 1)
	c.Spec.Executor = "slurm"
	if err := h.c.Create(ctx, c); err == nil || !strings.Contains(err.Error(), "spec.executor") {
		t.Errorf("unknown executor: %v", err)
	}
	c = h.campaign("plain", "sprot", 1)
	h.create(c)
	if got := h.get("plain").Spec.Executor; got != v1alpha1.ExecutorMPIJob {
		t.Errorf("default executor %q, want mpijob", got)
	}
	cur := h.get("plain")
	cur.Spec.Executor = v1alpha1.ExecutorArgo
	if err := h.c.Update(ctx, cur); err == nil || !strings.Contains(err.Error(), "executor is immutable") {
		t.Errorf("changing the executor: %v", err)
	}
}
