package executor

import (
	"errors"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
)

type fake struct{ kind v1alpha1.ExecutorKind }

func (f fake) Kind() v1alpha1.ExecutorKind               { return f.kind }
func (fake) NewObject() client.Object                    { return nil }
func (fake) NewList() client.ObjectList                  { return nil }
func (fake) Items(client.ObjectList) []client.Object     { return nil }
func (fake) Build(*PartitionSpec) (client.Object, error) { return nil, nil }
func (fake) State(client.Object) State                   { return State{} }

// A kind is looked up as registered; empty is mpijob; a kind known but
// not installed says why; an unknown one is an error naming it.
func TestRegistry(t *testing.T) {
	var r Registry
	r.Register(fake{v1alpha1.ExecutorMPIJob})
	missing := errors.New("argo is not installed")
	r.Unavailable(v1alpha1.ExecutorArgo, missing)
	for _, kind := range []v1alpha1.ExecutorKind{"", v1alpha1.ExecutorMPIJob} {
		if e, err := r.For(kind); err != nil || e.Kind() != v1alpha1.ExecutorMPIJob {
			t.Errorf("For(%q): %v, %v", kind, e, err)
		}
	}
	if _, err := r.For(v1alpha1.ExecutorArgo); !errors.Is(err, missing) {
		t.Errorf("For(argo): %v, want %v", err, missing)
	}
	if _, err := r.For("slurm"); err == nil {
		t.Error("For(slurm): no error")
	}
	if len(r.All()) != 1 {
		t.Errorf("All: %d executors, want 1", len(r.All()))
	}
}
