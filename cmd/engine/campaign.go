package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"

	"github.com/blastfleet/blastfleet/internal/engine"
	"github.com/blastfleet/blastfleet/internal/engine/enginemetrics"
	"github.com/blastfleet/blastfleet/internal/plan/search"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// fromPlan takes the search and its inputs from the campaign's plan.
func fromPlan(ctx context.Context, f *flags) (search.Spec, error) {
	for _, given := range []struct{ name, value string }{{"database", f.database}, {"queries", f.queries}, {"output", f.output}} {
		if given.value != "" {
			return search.Spec{}, fmt.Errorf("--%s cannot be given with --campaign: the plan says it", given.name)
		}
	}
	st, err := objstore.Open(ctx, f.campaign)
	if err != nil {
		return search.Spec{}, fmt.Errorf("--campaign: %w", err)
	}
	plan, err := ledger.ReadPlan(ctx, st)
	if err != nil {
		return search.Spec{}, fmt.Errorf("--campaign %s: %w", f.campaign, err)
	}
	// In a pod, a local path in the plan would be read from the pod's own
	// filesystem (its service account token, the image): whoever can write
	// the ledger must not choose that. Only where planner and partitions
	// share a filesystem (the CLI, the local runner, HPC sites) are paths
	// the planner's.
	if inKubernetes() {
		if err := plan.CheckRemote(); err != nil {
			return search.Spec{}, fmt.Errorf("--campaign %s: %w", f.campaign, err)
		}
	}
	f.database, f.queries, f.output = plan.Database.Location, plan.Queries.Location, f.campaign
	f.databaseManifest, f.databaseSHA256 = plan.Database.Manifest, plan.Database.ManifestSHA256
	return plan.Search, nil
}

// inKubernetes says whether the engine runs in a Kubernetes pod: the
// kubelet sets KUBERNETES_SERVICE_HOST in every container (unless the pod
// turns service links off), and the operator sets BLASTFLEET_NAMESPACE in
// every partition it makes.
func inKubernetes() bool {
	return os.Getenv("KUBERNETES_SERVICE_HOST") != "" || os.Getenv(enginemetrics.NamespaceEnv) != ""
}

func openCampaign(ctx context.Context, f *flags) (*engine.Campaign, error) {
	st, err := objstore.Open(ctx, f.campaign)
	if err != nil {
		return nil, fmt.Errorf("--campaign: %w", err)
	}
	now, err := ledgerClock()
	if err != nil {
		return nil, err
	}
	l, err := ledger.Open(ctx, st, ledger.Options{Now: now, Site: f.site})
	if err != nil {
		return nil, fmt.Errorf("--campaign %s: %w", f.campaign, err)
	}
	id := f.partitionID
	if id == "" {
		if id, err = os.Hostname(); err != nil {
			id = "partition"
		}
	}
	// A restarted partition must not pass for its former self.
	var b [4]byte
	_, _ = rand.Read(b[:])
	run := runLabels(f)
	return &engine.Campaign{Location: f.campaign, Ledger: l, Holder: id + "-" + hex.EncodeToString(b[:]),
		Namespace: run.Namespace, Name: run.Campaign, Partition: run.Partition, Site: f.site}, nil
}
