package controllers

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers/executor"
	"github.com/blastfleet/blastfleet/controllers/executor/argo"
	"github.com/blastfleet/blastfleet/internal/engine/enginemetrics"
	"github.com/blastfleet/blastfleet/internal/operator/argowf"
	"github.com/blastfleet/blastfleet/internal/operator/kubescheme"
)

// workflowParts decodes what the test checks of a built Workflow.
type workflowParts struct {
	Spec struct {
		Entrypoint            string            `json:"entrypoint"`
		Parallelism           int64             `json:"parallelism"`
		ActiveDeadlineSeconds *int64            `json:"activeDeadlineSeconds"`
		PodGC                 map[string]string `json:"podGC"`
		TTLStrategy           map[string]int64  `json:"ttlStrategy"`
		ServiceAccountName    string            `json:"serviceAccountName"`
		PodMetadata           struct {
			Labels map[string]string `json:"labels"`
		} `json:"podMetadata"`
		Templates []struct {
			Name  string `json:"name"`
			Steps [][]struct {
				Template     string            `json:"template"`
				WithSequence map[string]string `json:"withSequence"`
			} `json:"steps"`
			Container     *corev1.Container `json:"container"`
			RetryStrategy struct {
				Limit       int64  `json:"limit"`
				RetryPolicy string `json:"retryPolicy"`
			} `json:"retryStrategy"`
		} `json:"templates"`
	} `json:"spec"`
}

// The Workflow runs the partition's engine command in one step per
// worker (parallel), without mpirun, with slotsPerWorker in-process
// workers, a step-level retryStrategy, and no API token for the engine.
func TestArgoWorkflowWrapsSpec(t *testing.T) {
	for _, tc := range []struct {
		name           string
		campaign       *campaignBuilder
		wantPartition  string
		workers, slots int
	}{
		{"one-worker", aCampaign().partitions(1, 1, 3), "camp-p1-r0", 1, 3},
		{"fan-out", aCampaign().partitions(1, 3, 2), "camp-p1-r0-w{{inputs.parameters.worker}}", 3, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.campaign.c.Spec.ActiveDeadlineSeconds = ptr.To[int64](3600)
			s := NewPartitionSpec(tc.campaign.request(1, 0))
			obj, err := argo.Executor{TTLSecondsAfterFinished: 60}.Build(s)
			if err != nil {
				t.Fatal(err)
			}
			u := obj.(*unstructured.Unstructured)
			if u.GroupVersionKind() != argowf.Workflow || u.GetName() != s.Name || u.GetNamespace() != s.Namespace || u.GetLabels()[LabelCampaign] != "camp" {
				t.Errorf("object %v %s/%s labels %v", u.GroupVersionKind(), u.GetNamespace(), u.GetName(), u.GetLabels())
			}
			var wf workflowParts
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &wf); err != nil {
				t.Fatal(err)
			}
			sp := wf.Spec
			if sp.Parallelism != int64(tc.workers) || sp.PodGC["strategy"] != "OnPodSuccess" || sp.TTLStrategy["secondsAfterCompletion"] != 60 ||
				sp.ActiveDeadlineSeconds == nil || *sp.ActiveDeadlineSeconds != 3600 {
				t.Errorf("parallelism %d podGC %v ttl %v deadline %v", sp.Parallelism, sp.PodGC, sp.TTLStrategy, sp.ActiveDeadlineSeconds)
			}
			if sp.ServiceAccountName != argowf.ExecutorServiceAccount {
				t.Errorf("service account %q, want the executor's (workflowtaskresults only)", sp.ServiceAccountName)
			}
			if sp.PodMetadata.Labels[LabelCampaign] != "camp" {
				t.Errorf("pod labels %v lack the campaign (the PodMonitor selects on it)", sp.PodMetadata.Labels)
			}
			if len(sp.Templates) != 2 || sp.Entrypoint != sp.Templates[0].Name {
				t.Fatalf("templates %+v", sp.Templates)
			}
			step := sp.Templates[0].Steps[0][0]
			if step.Template != "engine" || step.WithSequence["count"] != strconv.Itoa(tc.workers) {
				t.Errorf("step %+v, want %d engine steps", step, tc.workers)
			}
			eng := sp.Templates[1]
			if eng.RetryStrategy.Limit != argo.DefaultStepRetries || eng.RetryStrategy.RetryPolicy != "Always" {
				t.Errorf("retryStrategy %+v", eng.RetryStrategy)
			}
			c := eng.Container
			argv := strings.Join(append(slices.Clone(c.Command), c.Args...), " ")
			if !strings.HasPrefix(argv, "blastfleet-engine --campaign ") || strings.Contains(argv, "mpirun") {
				t.Errorf("step runs %q, want the engine without mpirun", argv)
			}
			if !strings.Contains(argv, "--partition-id "+tc.wantPartition+" ") || !strings.HasSuffix(argv, " --workers "+strconv.Itoa(tc.slots)) {
				t.Errorf("step runs %q, want partition id %s and --workers %d", argv, tc.wantPartition, tc.slots)
			}
			if !slices.Contains(c.Env, corev1.EnvVar{Name: enginemetrics.PartitionEnv, Value: tc.wantPartition}) {
				t.Errorf("env %v: the metrics' partition label must be the ledger's id", c.Env)
			}
			sc := c.SecurityContext
			if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
				t.Errorf("engine container securityContext %+v, want restricted", sc)
			}
			for _, e := range c.Env {
				if e.Value != "" && (strings.Contains(e.Name, "SECRET") || strings.Contains(e.Name, "ACCESS_KEY")) {
					t.Errorf("credential %s has a value in the Workflow", e.Name)
				}
			}
		})
	}
}

// Kueue admits MPIJobs only: a queued partition cannot be a Workflow
// (the API refuses the campaign first).
func TestArgoRefusesQueue(t *testing.T) {
	if _, err := (argo.Executor{}).Build(NewPartitionSpec(aCampaign().queue("team").request(0, 0))); err == nil {
		t.Fatal("a Workflow built for a Kueue-queued partition")
	}
}

// State reads status.phase, and a Running Workflow is Running only once
// a step's pod runs (status.nodes).
func TestArgoState(t *testing.T) {
	wf := func(status map[string]any) *unstructured.Unstructured {
		u := argo.Executor{}.NewObject().(*unstructured.Unstructured)
		if status != nil {
			u.Object["status"] = status
		}
		return u
	}
	fin := "2026-11-26T05:00:00Z"
	for _, tc := range []struct {
		name   string
		status map[string]any
		want   executor.Phase
		reason string
	}{
		{"new", nil, executor.Queued, "Starting"},
		{"pending", map[string]any{"phase": "Pending"}, executor.Queued, "Starting"},
		{"running-no-pod", map[string]any{"phase": "Running", "nodes": map[string]any{
			"a": map[string]any{"type": "Steps", "phase": "Running"}, "b": map[string]any{"type": "Pod", "phase": "Pending"}}}, executor.Queued, "Starting"},
		{"running", map[string]any{"phase": "Running", "nodes": map[string]any{
			"b": map[string]any{"type": "Pod", "phase": "Running"}}}, executor.Running, ""},
		{"succeeded", map[string]any{"phase": "Succeeded", "finishedAt": fin}, executor.Succeeded, "WorkflowSucceeded"},
		{"failed", map[string]any{"phase": "Failed", "finishedAt": fin, "message": "child failed"}, executor.Failed, "WorkflowFailed"},
		{"error", map[string]any{"phase": "Error", "finishedAt": fin}, executor.Failed, "WorkflowError"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := argo.Executor{}.State(wf(tc.status))
			if st.Phase != tc.want || st.Reason != tc.reason {
				t.Errorf("state %+v, want %s %s", st, tc.want, tc.reason)
			}
			if tc.want == executor.Succeeded || tc.want == executor.Failed {
				if want, _ := time.Parse(time.RFC3339, fin); !st.FinishedAt.Equal(want) {
					t.Errorf("finished at %s, want status.finishedAt %s", st.FinishedAt, fin)
				}
			}
		})
	}
	if st := (argo.Executor{}).State(wf(map[string]any{"phase": "Failed", "message": "child failed"})); st.Message != "child failed" {
		t.Errorf("message %q, want status.message", st.Message)
	}
	// Without status.finishedAt: the last node's end, else the creation;
	// never the time of observation (the replacement backoff would never
	// run out, as finding 9 of issue 30 found for MPIJobs).
	node := "2026-11-26T04:59:00Z"
	noEnd := wf(map[string]any{"phase": "Failed", "nodes": map[string]any{
		"a": map[string]any{"type": "Pod", "phase": "Failed", "finishedAt": node},
		"b": map[string]any{"type": "Pod", "phase": "Failed", "finishedAt": "2026-11-26T04:58:00Z"}}})
	if st, want := (argo.Executor{}).State(noEnd), mustTime(t, node); !st.FinishedAt.Equal(want) {
		t.Errorf("failed without finishedAt: finished at %s, want the last node's end %s", st.FinishedAt, want)
	}
	bare := wf(map[string]any{"phase": "Error"})
	created := metav1.NewTime(mustTime(t, "2026-11-26T04:00:00Z"))
	bare.SetCreationTimestamp(created)
	if st := (argo.Executor{}).State(bare); !st.FinishedAt.Equal(created.Time) {
		t.Errorf("errored with no times: finished at %s, want the creation %s", st.FinishedAt, created)
	}
}

// A campaign's own ServiceAccount runs its Workflow's pods (its identity
// reaches the stores), but none of its containers gets that account's
// API token, nor does a database's build: the author may name any
// account of the namespace. Argo's own containers get the executor's
// token, from the Secret Prepare creates.
func TestArgoServiceAccount(t *testing.T) {
	b := aCampaign()
	b.c.Spec.Partitions.ServiceAccountName = "cluster-admin-ish"
	partition, err := argo.Executor{}.Build(NewPartitionSpec(b.request(0, 0)))
	if err != nil {
		t.Fatal(err)
	}
	db := &v1alpha1.BlastDatabase{}
	db.Name, db.Namespace, db.Spec.ServiceAccountName = "db", "ns", "cluster-admin-ish"
	build, err := databaseWorkflow(db, "s3://b/src.fa", "s3://b/db", 2, "img", 60, "")
	if err != nil {
		t.Fatal(err)
	}
	for name, wf := range map[string]*unstructured.Unstructured{"partition": partition.(*unstructured.Unstructured), "database build": build} {
		if sa, _, _ := unstructured.NestedString(wf.Object, "spec", "serviceAccountName"); sa != "cluster-admin-ish" {
			t.Errorf("%s Workflow runs as %q, want the author's cluster-admin-ish", name, sa)
		}
		if mount, found, _ := unstructured.NestedBool(wf.Object, "spec", "automountServiceAccountToken"); !found || mount {
			t.Errorf("%s Workflow: automountServiceAccountToken %v (set: %v): its pods get the author's account's token", name, mount, found)
		}
		// Argo refuses automountServiceAccountToken false without it.
		if sa, _, _ := unstructured.NestedString(wf.Object, "spec", "executor", "serviceAccountName"); sa != argowf.ExecutorServiceAccount {
			t.Errorf("%s Workflow: executor.serviceAccountName %q, want %s", name, sa, argowf.ExecutorServiceAccount)
		}
	}

	c := fake.NewClientBuilder().WithScheme(kubescheme.New()).Build()
	if err := (argo.Executor{}).Prepare(context.Background(), c, "ns", "cluster-admin-ish"); err != nil {
		t.Fatal(err)
	}
	var tok corev1.Secret
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: "ns", Name: argowf.ExecutorServiceAccount + ".service-account-token"}, &tok); err != nil {
		t.Fatalf("the executor's token Secret, which Argo mounts into its own containers: %v", err)
	}
	if tok.Type != corev1.SecretTypeServiceAccountToken || tok.Annotations[corev1.ServiceAccountNameKey] != argowf.ExecutorServiceAccount {
		t.Errorf("token Secret %+v", tok)
	}
	var rbs rbacv1.RoleBindingList
	if err := c.List(context.Background(), &rbs, client.InNamespace("ns")); err != nil {
		t.Fatal(err)
	}
	for _, rb := range rbs.Items {
		for _, s := range rb.Subjects {
			if s.Name != argowf.ExecutorServiceAccount {
				t.Errorf("RoleBinding %s grants the executor Role to %s", rb.Name, s.Name)
			}
		}
	}
	if len(rbs.Items) != 1 {
		t.Errorf("%d RoleBindings, want the executor's", len(rbs.Items))
	}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
