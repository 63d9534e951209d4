package controllers

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/blastfleet/blastfleet/internal/argowf"
	"github.com/blastfleet/blastfleet/internal/enginemetrics"
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
			obj, err := ArgoExecutor{TTLSecondsAfterFinished: 60}.Build(s)
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
			if eng.RetryStrategy.Limit != argoStepRetries || eng.RetryStrategy.RetryPolicy != "Always" {
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
	if _, err := (ArgoExecutor{}).Build(NewPartitionSpec(aCampaign().queue("team").request(0, 0))); err == nil {
		t.Fatal("a Workflow built for a Kueue-queued partition")
	}
}

// State reads status.phase, and a Running Workflow is Running only once
// a step's pod runs (status.nodes).
func TestArgoState(t *testing.T) {
	wf := func(status map[string]any) *unstructured.Unstructured {
		u := ArgoExecutor{}.NewObject().(*unstructured.Unstructured)
		if status != nil {
			u.Object["status"] = status
		}
		return u
	}
	fin := "2026-11-26T05:00:00Z"
	for _, tc := range []struct {
		name   string
		status map[string]any
		want   Phase
		reason string
	}{
		{"new", nil, PartitionQueued, "Starting"},
		{"pending", map[string]any{"phase": "Pending"}, PartitionQueued, "Starting"},
		{"running-no-pod", map[string]any{"phase": "Running", "nodes": map[string]any{
			"a": map[string]any{"type": "Steps", "phase": "Running"}, "b": map[string]any{"type": "Pod", "phase": "Pending"}}}, PartitionQueued, "Starting"},
		{"running", map[string]any{"phase": "Running", "nodes": map[string]any{
			"b": map[string]any{"type": "Pod", "phase": "Running"}}}, PartitionRunning, ""},
		{"succeeded", map[string]any{"phase": "Succeeded", "finishedAt": fin}, PartitionSucceeded, "WorkflowSucceeded"},
		{"failed", map[string]any{"phase": "Failed", "finishedAt": fin, "message": "child failed"}, PartitionFailed, "WorkflowFailed"},
		{"error", map[string]any{"phase": "Error", "finishedAt": fin}, PartitionFailed, "WorkflowError"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := ArgoExecutor{}.State(wf(tc.status))
			if st.Phase != tc.want || st.Reason != tc.reason {
				t.Errorf("state %+v, want %s %s", st, tc.want, tc.reason)
			}
			if tc.want == PartitionSucceeded || tc.want == PartitionFailed {
				if want, _ := time.Parse(time.RFC3339, fin); !st.FinishedAt.Equal(want) {
					t.Errorf("finished at %s, want status.finishedAt %s", st.FinishedAt, fin)
				}
			}
		})
	}
	if st := (ArgoExecutor{}).State(wf(map[string]any{"phase": "Failed", "message": "child failed"})); st.Message != "child failed" {
		t.Errorf("message %q, want status.message", st.Message)
	}
}

// A campaign's own ServiceAccount runs its Workflow's pods (its identity
// reaches the stores); the executor Role's binding to it fits any name.
func TestArgoServiceAccount(t *testing.T) {
	b := aCampaign()
	b.c.Spec.Partitions.ServiceAccountName = "irsa-reader"
	obj, err := ArgoExecutor{}.Build(NewPartitionSpec(b.request(0, 0)))
	if err != nil {
		t.Fatal(err)
	}
	if sa, _, _ := unstructured.NestedString(obj.(*unstructured.Unstructured).Object, "spec", "serviceAccountName"); sa != "irsa-reader" {
		t.Errorf("Workflow runs as %q, want the campaign's irsa-reader", sa)
	}
	long := strings.Repeat("a", 253)
	if n := bindingName(argowf.ExecutorServiceAccount, long); len(n) > 253 || n == bindingName(argowf.ExecutorServiceAccount, long[:252]+"b") {
		t.Errorf("binding name %q (%d chars) for a 253-character ServiceAccount", n, len(n))
	}
}
