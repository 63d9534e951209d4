package controllers

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// databaseBuilder builds a database's shards and manifest in the
// cluster, as the campaign's partitions run through an executor: it
// creates what is missing, reads how far it got into the status, and says
// when to look again (0: Ready or Failed, the status says which).
type databaseBuilder interface {
	build(ctx context.Context, run *databaseRun, src, loc string) (time.Duration, error)
}

// builderFor is how db is built: a prebuilt BLAST database's volumes
// copied by one Job (blastdbBuilder), a FASTA sharded by an Indexed Job
// (jobsBuilder) or by an Argo Workflow (pipelineBuilder), as
// spec.builder says (empty: a Workflow where Argo is installed).
func (r *DatabaseReconciler) builderFor(db *v1alpha1.BlastDatabase) databaseBuilder {
	switch b := db.Spec.Builder; {
	case db.Spec.SourceFormat == v1alpha1.SourceBlastDB:
		return blastdbBuilder{}
	case b == v1alpha1.BuilderArgo || (b == "" && r.Argo):
		return pipelineBuilder{installed: r.Argo}
	}
	return jobsBuilder{}
}

// fastaShards reads the FASTA source and records how many shards it
// makes; ok false when it cannot, the status saying why and wait when
// to look again.
func (run *databaseRun) fastaShards(ctx context.Context, src string) (shards int32, wait time.Duration, ok bool) {
	shards, err := run.shardCount(ctx, src)
	if errors.Is(err, objstore.ErrNotExist) {
		run.set(v1alpha1.DatabaseFailed, "SourceNotFound", fmt.Sprintf("spec.source: object %s does not exist", src))
		return 0, 0, false
	}
	if err != nil {
		run.set(v1alpha1.DatabasePending, storageReason(err), fmt.Sprintf("spec.source: %s: %v", src, err))
		return 0, run.r.PollInterval, false
	}
	run.db.Status.Shards = shards
	return shards, 0, true
}
