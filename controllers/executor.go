package controllers

import (
	"context"
	"errors"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
)

// Executor runs partitions as objects of one kind: MPIJobs
// (mpijob.go) or Argo Workflows (argo.go), as spec.executor says. The campaign reconciler only creates,
// reads and deletes them through this interface (kueue's pattern: one
// generic reconciler, small per-framework adapters).
type Executor interface {
	// NewObject and NewList are empty objects of the executor's kind.
	NewObject() client.Object
	NewList() client.ObjectList
	// Items are the objects of a list from NewList.
	Items(list client.ObjectList) []client.Object
	// Build wraps a partition's spec in an object, ready to create. It
	// adds how its kind starts the ranks, nothing the engine needs.
	Build(s *PartitionSpec) (client.Object, error)
	// State reads a partition's state from its object.
	State(obj client.Object) PartitionState
}

// Preparer is an executor that needs something in a campaign's
// namespace before its partitions run there as serviceAccount (empty:
// the executor's own): Argo's wait container records results.
type Preparer interface {
	Prepare(ctx context.Context, c client.Client, namespace, serviceAccount string) error
}

// ErrArgoMissing: a campaign asks for executor argo on a cluster whose
// API server has no argoproj.io Workflow kind (or had none when the
// operator started).
var ErrArgoMissing = errors.New("spec.executor is argo but Argo Workflows is not installed: the API server had no workflows.argoproj.io when the operator started (install Argo Workflows, then restart the operator; docs/operator.md)")

// executorFor is the executor of the campaign's spec.executor.
func (r *CampaignReconciler) executorFor(c *v1alpha1.SearchCampaign) (Executor, error) {
	if c.Spec.Executor == v1alpha1.ExecutorArgo {
		if r.Argo == nil {
			return nil, ErrArgoMissing
		}
		return r.Argo, nil
	}
	return r.Executor, nil
}

// PartitionRequest is what a partition needs to run; NewPartitionSpec
// turns it into what every executor runs.
type PartitionRequest struct {
	Campaign *v1alpha1.SearchCampaign
	Index    int
	Restart  int
	// Location of the campaign's ledger, s3://bucket/prefix.
	Location string
	Image    string
	// Site names where the partition runs, in the ledger (DefaultSite if
	// empty).
	Site string
	// Database is the campaign's database, whose store the ranks reach
	// with its own variables; nil only in tests of other things.
	Database *v1alpha1.BlastDatabase
	// STSEndpoint: see StoreOpener.STSEndpoint.
	STSEndpoint string
	// QueryBytes is the queries object's size (the plan's; 0 unknown):
	// the master holds every query, and its pod's memory counts them.
	QueryBytes int64
}

// Phase of a partition.
type Phase int

const (
	// PartitionQueued: created but not running yet (waiting for admission
	// by Kueue, for its pods, or suspended).
	PartitionQueued Phase = iota
	PartitionRunning
	PartitionSucceeded
	PartitionFailed
)

func (p Phase) String() string {
	return [...]string{"Queued", "Running", "Succeeded", "Failed"}[p]
}

// PartitionState is a partition's phase, and for a finished one when and
// why it finished.
type PartitionState struct {
	Phase      Phase
	FinishedAt time.Time
	Reason     string
	Message    string
}
