package executor

import (
	"context"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
)

// Executor runs partitions as objects of one kind. The campaign
// reconciler only creates, reads and deletes them through it (kueue's
// pattern: one generic reconciler, small per-framework adapters).
type Executor interface {
	// Kind is the spec.executor value the adapter runs.
	Kind() v1alpha1.ExecutorKind
	// NewObject and NewList are empty objects of the executor's kind.
	NewObject() client.Object
	NewList() client.ObjectList
	// Items are the objects of a list from NewList.
	Items(list client.ObjectList) []client.Object
	// Build wraps a partition's spec in an object, ready to create. It
	// renders the engine's command line its own way and adds how its
	// kind starts the ranks.
	Build(s *PartitionSpec) (client.Object, error)
	// State reads a partition's state from its object.
	State(obj client.Object) State
}

// Preparer is an executor that needs something in a campaign's
// namespace before its partitions run there as serviceAccount (empty:
// the executor's own): Argo's wait container records results.
type Preparer interface {
	Prepare(ctx context.Context, c client.Client, namespace, serviceAccount string) error
}

// Phase of a partition.
type Phase int

const (
	// Queued: created but not running yet (waiting for admission by
	// Kueue, for its pods, or suspended).
	Queued Phase = iota
	Running
	Succeeded
	Failed
)

func (p Phase) String() string {
	return [...]string{"Queued", "Running", "Succeeded", "Failed"}[p]
}

// State is a partition's phase, and for a finished one when and why it
// finished.
type State struct {
	Phase      Phase
	FinishedAt time.Time
	Reason     string
	Message    string
}

// Objects are a list's items as client.Objects, for an adapter's Items.
func Objects[T any, P interface {
	*T
	client.Object
}](items []T) []client.Object {
	out := make([]client.Object, len(items))
	for i := range items {
		out[i] = P(&items[i])
	}
	return out
}
