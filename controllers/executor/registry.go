package executor

import (
	"fmt"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
)

// Registry holds the executors the operator runs, by spec.executor kind,
// and why a known kind cannot run here. The operator's setup fills it in
// one place; the reconciler only looks kinds up.
type Registry struct {
	byKind  map[v1alpha1.ExecutorKind]Executor
	missing map[v1alpha1.ExecutorKind]error
	order   []Executor
}

// Register adds e under its kind; a kind registered twice is a bug.
func (r *Registry) Register(e Executor) {
	if r.byKind == nil {
		r.byKind = map[v1alpha1.ExecutorKind]Executor{}
	}
	if _, dup := r.byKind[e.Kind()]; dup {
		panic(fmt.Sprintf("executor %s registered twice", e.Kind()))
	}
	r.byKind[e.Kind()] = e
	r.order = append(r.order, e)
}

// Unavailable records why campaigns of kind cannot run on this cluster
// (its API is not installed): For returns err for them.
func (r *Registry) Unavailable(kind v1alpha1.ExecutorKind, err error) {
	if r.missing == nil {
		r.missing = map[v1alpha1.ExecutorKind]error{}
	}
	r.missing[kind] = err
}

// For is the executor of spec.executor kind; empty is the API's default,
// mpijob (a campaign stored before the field existed).
func (r *Registry) For(kind v1alpha1.ExecutorKind) (Executor, error) {
	if kind == "" {
		kind = v1alpha1.ExecutorMPIJob
	}
	if e, ok := r.byKind[kind]; ok {
		return e, nil
	}
	if err := r.missing[kind]; err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("spec.executor %q: no such executor in this operator", kind)
}

// All are the registered executors, in the order registered: the kinds
// whose objects the reconciler watches.
func (r *Registry) All() []Executor { return r.order }
