package operator

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers"
	"github.com/blastfleet/blastfleet/internal/operator/argowf"
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
	t.Parallel() // its own API server, MinIO and operator
	h := newArgoHarness(t)
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
	// The reconcile that created the Workflow may still be writing its
	// status (or lost that write to a conflict, and the next one counts).
	h.eventually("1 partition queued before Argo ran anything", 10*time.Second, func() (bool, string) {
		got := h.get("wf").Status.Partitions
		return got.Queued == 1 && got.Running == 0, fmt.Sprintf("partitions %+v", got)
	})

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
	h.assembleAsPartition(l)
	h.setWorkflowStatus(r1, map[string]any{"phase": "Succeeded", "finishedAt": time.Now().UTC().Format(time.RFC3339)})
	done := h.waitPhase("wf", v1alpha1.CampaignComplete, 20*time.Second)
	if done.Status.Result == "" || done.Status.Progress != "100%" {
		t.Errorf("completed status: %+v", done.Status)
	}

	// A campaign's own ServiceAccount runs its Workflow's pods, with no
	// token mounted; the executor Role stays bound to the executor's
	// account alone, whose token Argo's own containers get.
	h.putQueries("wfsa")
	c = h.campaign("wfsa", "sprot", 1)
	c.Spec.Executor, c.Spec.Partitions.ServiceAccountName = v1alpha1.ExecutorArgo, "reader"
	h.create(c)
	h.writePlan("wfsa", "sprot", 2)
	sa := h.waitWorkflows("wfsa", "wfsa-p0-r0")["wfsa-p0-r0"]
	if got, _, _ := unstructured.NestedString(sa.Object, "spec", "serviceAccountName"); got != "reader" {
		t.Errorf("Workflow runs as %q, want the campaign's reader", got)
	}
	if mount, found, _ := unstructured.NestedBool(sa.Object, "spec", "automountServiceAccountToken"); !found || mount {
		t.Errorf("Workflow automountServiceAccountToken %v (set %v), want false", mount, found)
	}
	var rbs rbacv1.RoleBindingList
	if err := h.c.List(ctx, &rbs, client.InNamespace(h.ns)); err != nil {
		t.Fatal(err)
	}
	for _, rb := range rbs.Items {
		if rb.RoleRef.Name == argowf.ExecutorServiceAccount && (len(rb.Subjects) != 1 || rb.Subjects[0].Name != argowf.ExecutorServiceAccount) {
			t.Errorf("binding %+v", rb)
		}
	}
	var tok corev1.Secret
	if err := h.c.Get(ctx, client.ObjectKey{Namespace: h.ns, Name: argowf.ExecutorServiceAccount + ".service-account-token"}, &tok); err != nil || tok.Type != corev1.SecretTypeServiceAccountToken {
		t.Errorf("the executor's token Secret: %v %+v", err, tok.ObjectMeta)
	}
	if err := h.c.Get(ctx, client.ObjectKey{Namespace: h.ns, Name: "reader"}, &corev1.ServiceAccount{}); err == nil {
		t.Error("the operator created the campaign's ServiceAccount")
	}
}

// TestArgoExecutorValidation: the API refuses executor argo with a Kueue
// queue, an executor changed after creation, and an unknown executor;
// without the field the campaign is an MPIJob one.
func TestArgoExecutorValidation(t *testing.T) {
	t.Parallel() // its own API server, MinIO and operator
	h := newArgoHarness(t)
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
	// One searching worker is enough with either executor: the master
	// runs beside it (Argo) or as a rank beyond the slots (MPIJob).
	c = h.campaign("onestep", "sprot", 1)
	c.Spec.Executor, c.Spec.Partitions.Workers, c.Spec.Partitions.SlotsPerWorker = v1alpha1.ExecutorArgo, 1, 1
	h.create(c)
	c = h.campaign("oneslot", "sprot", 1)
	c.Spec.Partitions.Workers, c.Spec.Partitions.SlotsPerWorker = 1, 1
	h.create(c)
	c = h.campaign("plain", "sprot", 1)
	h.create(c)
	if got := h.get("plain").Spec.Executor; got != v1alpha1.ExecutorMPIJob {
		t.Errorf("default executor %q, want mpijob", got)
	}
	// The operator writes the campaign too (finalizer, status): a
	// conflict is its write, not the answer; read it again and retry.
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur := h.get("plain")
		cur.Spec.Executor = v1alpha1.ExecutorArgo
		return h.c.Update(ctx, cur)
	})
	if err == nil || !strings.Contains(err.Error(), "executor is immutable") {
		t.Errorf("changing the executor: %v", err)
	}
}

// TestArgoExecutorUnavailable: on a cluster without Argo, a campaign of
// executor argo waits with a condition naming the cause (not Failed:
// installing Argo and restarting the operator lets it run).
func TestArgoExecutorUnavailable(t *testing.T) {
	t.Parallel() // its own API server, MinIO and operator
	h := newHarness(t)
	h.readyDatabase("sprot", v1alpha1.DatabaseProtein)
	h.putQueries("noargo")
	c := h.campaign("noargo", "sprot", 1)
	c.Spec.Executor = v1alpha1.ExecutorArgo
	h.create(c)
	h.writePlan("noargo", "sprot", 2)
	h.eventually("Ready condition ExecutorUnavailable", 20*time.Second, func() (bool, string) {
		got := h.get("noargo")
		cond := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionReady)
		return cond != nil && cond.Reason == "ExecutorUnavailable" && strings.Contains(cond.Message, "Argo Workflows is not installed") &&
			got.Status.Phase != v1alpha1.CampaignFailed, fmt.Sprintf("phase %s, %+v", got.Status.Phase, cond)
	})
	st := h.store("")
	fa := []byte(">a\nACGTACGTAC\n")
	if err := st.Put(context.Background(), "fasta/noargo.fa", bytes.NewReader(fa), int64(len(fa))); err != nil {
		t.Fatal(err)
	}
	h.create(&v1alpha1.BlastDatabase{
		ObjectMeta: metav1.ObjectMeta{Name: "noargo", Namespace: h.ns},
		Spec: v1alpha1.BlastDatabaseSpec{Source: v1alpha1.ObjectReference{Key: "fasta/noargo.fa"}, Type: v1alpha1.DatabaseNucleotide,
			Shards: v1alpha1.Sharding{Count: ptr.To[int32](1)}, Storage: h.output("databases"), Builder: v1alpha1.BuilderArgo},
	})
	h.waitDatabaseReason("noargo", "ArgoUnavailable", "spec.builder is argo but Argo Workflows is not installed")
}

// workflow is the named Workflow, or nil.
func (h *harness) workflow(name string) *unstructured.Unstructured {
	h.t.Helper()
	wf := &unstructured.Unstructured{}
	wf.SetGroupVersionKind(argowf.Workflow)
	if err := h.c.Get(context.Background(), client.ObjectKey{Namespace: h.ns, Name: name}, wf); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		h.t.Fatal(err)
	}
	return wf
}

// TestDatabasePipelineWorkflow: with Argo installed a BlastDatabase
// builds as a Workflow (verify, a shard step per shard, the manifest),
// owned by the database; its shard steps' nodes count as shards built,
// and a failed Workflow fails the database naming the step. spec.builder
// job keeps the Jobs.
func TestDatabasePipelineWorkflow(t *testing.T) {
	t.Parallel() // its own API server, MinIO and operator
	h := newArgoHarness(t)
	ctx := context.Background()
	st := h.store("")
	fa := []byte(">a\nACGTACGTAC\n>b\nGGGGCCCCAA\n>c\nTTTTAAAACC\n")
	for _, k := range []string{"fasta/wfdb.fa", "fasta/jobdb.fa"} {
		if err := st.Put(ctx, k, bytes.NewReader(fa), int64(len(fa))); err != nil {
			t.Fatal(err)
		}
	}
	db := func(name string, builder v1alpha1.DatabaseBuilder) *v1alpha1.BlastDatabase {
		return &v1alpha1.BlastDatabase{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: h.ns},
			Spec: v1alpha1.BlastDatabaseSpec{Source: v1alpha1.ObjectReference{Key: "fasta/" + name + ".fa"}, Type: v1alpha1.DatabaseNucleotide,
				Shards: v1alpha1.Sharding{Count: ptr.To[int32](3)}, Parallelism: ptr.To[int32](2), Storage: h.output("databases"), Builder: builder},
		}
	}
	h.create(db("wfdb", ""))
	h.create(db("jobdb", v1alpha1.BuilderJob))

	var wf *unstructured.Unstructured
	h.eventually("Workflow wfdb-build", 20*time.Second, func() (bool, string) {
		wf = h.workflow(controllers.PipelineName("wfdb"))
		return wf != nil, "none"
	})
	if !slices.ContainsFunc(wf.GetOwnerReferences(), func(r metav1.OwnerReference) bool {
		return r.Kind == "BlastDatabase" && r.Name == "wfdb" && ptr.Deref(r.Controller, false)
	}) {
		t.Errorf("Workflow owners %v", wf.GetOwnerReferences())
	}
	par, _, _ := unstructured.NestedInt64(wf.Object, "spec", "parallelism")
	tmpls, _, _ := unstructured.NestedSlice(wf.Object, "spec", "templates")
	var argv []string
	for _, tm := range tmpls[1:] {
		var c corev1.Container
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(tm.(map[string]any)["container"].(map[string]any), &c); err != nil {
			t.Fatal(err)
		}
		h.noSecretsIn(c)
		argv = append(argv, strings.Join(c.Args, " "))
	}
	if par != 2 || len(argv) != 3 || !strings.HasSuffix(argv[0], " --verify") ||
		!strings.Contains(argv[1], "--shard-index {{inputs.parameters.index}} --source-sha256 {{inputs.parameters.sha256}}") ||
		!strings.HasSuffix(argv[2], "--finish --source-sha256 {{inputs.parameters.sha256}}") {
		t.Errorf("parallelism %d, steps:\n%s", par, strings.Join(argv, "\n"))
	}

	h.setWorkflowStatus(wf, map[string]any{"phase": "Running", "nodes": map[string]any{
		"v":  map[string]any{"type": "Pod", "templateName": "verify", "phase": "Succeeded"},
		"s0": map[string]any{"type": "Pod", "templateName": "shard", "phase": "Succeeded"},
		"s1": map[string]any{"type": "Pod", "templateName": "shard", "phase": "Succeeded"},
		"s2": map[string]any{"type": "Pod", "templateName": "shard", "phase": "Running"}}})
	h.eventually("2 of 3 shards built", 10*time.Second, func() (bool, string) {
		var got v1alpha1.BlastDatabase
		_ = h.c.Get(ctx, client.ObjectKey{Namespace: h.ns, Name: "wfdb"}, &got)
		return got.Status.ShardsBuilt == 2 && got.Status.Phase == v1alpha1.DatabaseSharding, fmt.Sprintf("%s %d built", got.Status.Phase, got.Status.ShardsBuilt)
	})
	h.setWorkflowStatus(wf, map[string]any{"phase": "Failed", "message": "child 's2' failed", "nodes": map[string]any{
		"s2": map[string]any{"type": "Pod", "templateName": "shard", "displayName": "shard(2:2)", "phase": "Failed", "message": "Error (exit code 1)"}}})
	h.eventually("database wfdb Failed", 20*time.Second, func() (bool, string) {
		var got v1alpha1.BlastDatabase
		_ = h.c.Get(ctx, client.ObjectKey{Namespace: h.ns, Name: "wfdb"}, &got)
		cond := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionFailed)
		return got.Status.Phase == v1alpha1.DatabaseFailed && cond != nil && cond.Reason == "PipelineFailed" &&
			strings.Contains(cond.Message, "shard(2:2): Error (exit code 1)"), fmt.Sprintf("%s %+v", got.Status.Phase, cond)
	})

	h.eventually("Jobs of jobdb", 20*time.Second, func() (bool, string) {
		var jobs batchv1.JobList
		_ = h.c.List(ctx, &jobs, client.InNamespace(h.ns), client.MatchingLabels{controllers.LabelDatabase: "jobdb"})
		return len(jobs.Items) == 1, fmt.Sprintf("%d Jobs", len(jobs.Items))
	})
	if h.workflow(controllers.PipelineName("jobdb")) != nil {
		t.Error("a Workflow for a database of builder job")
	}
}
