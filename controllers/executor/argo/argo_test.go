package argo

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/blastfleet/blastfleet/controllers/executor"
	"github.com/blastfleet/blastfleet/internal/engine/enginemetrics"
)

func aSpec(workers int32) *executor.PartitionSpec {
	return &executor.PartitionSpec{
		Name: "camp-p1-r0", Namespace: "ns", Image: "worker:test",
		PodLabels: map[string]string{"app": "camp"},
		Workers:   workers, SlotsPerWorker: 3,
		Engine: executor.Engine{Ledger: "s3://b/ns/camp", PartitionID: "camp-p1-r0", Strategy: "merged", CacheDir: "/scratch/shards",
			Site: "cloud", Namespace: "ns", Campaign: "camp"},
		Env: []corev1.EnvVar{{Name: "AWS_REGION", Value: "us-east-1"}},
	}
}

// Each step renders the engine itself: its own partition id when the
// partition fans out, the slots as in-process workers, and the same id
// in its metrics' labels. The spec is left as it was.
func TestBuildRendersEngine(t *testing.T) {
	for _, tc := range []struct {
		workers int32
		id      string
	}{{1, "camp-p1-r0"}, {3, "camp-p1-r0-w{{inputs.parameters.worker}}"}} {
		s := aSpec(tc.workers)
		before := s.Engine
		obj, err := Executor{}.Build(s)
		if err != nil {
			t.Fatal(err)
		}
		var wf struct {
			Spec WorkflowSpec `json:"spec"`
		}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.(*unstructured.Unstructured).Object, &wf); err != nil {
			t.Fatal(err)
		}
		c := wf.Spec.Templates[1].Container
		want := before
		want.PartitionID, want.Workers = tc.id, 3
		if got := append(slices.Clone(c.Command), c.Args...); !slices.Equal(got, want.Argv()) {
			t.Errorf("%d workers: step runs %q, want %q", tc.workers, got, want.Argv())
		}
		if !slices.Contains(c.Env, corev1.EnvVar{Name: enginemetrics.PartitionEnv, Value: tc.id}) || !slices.Contains(c.Env, s.Env[0]) {
			t.Errorf("%d workers: env %v, want the stores' and partition id %s", tc.workers, c.Env, tc.id)
		}
		if s.Engine.PartitionID != before.PartitionID || s.Engine.Workers != 0 {
			t.Errorf("Build changed the spec's engine: %+v", s.Engine)
		}
	}
}
