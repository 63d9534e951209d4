package controllers

import (
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
)

// Executor runs partitions as objects of one kind: MPIJob today, Argo
// Workflows or Slurm jobs later. The campaign reconciler only creates,
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
