package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/engine/enginemetrics"
	"github.com/blastfleet/blastfleet/internal/plan/search"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// A plan naming local paths is followed where the planner's filesystem is
// the partitions' (HPC, local runs), and refused in a pod, where the path
// would be the pod's own filesystem.
func TestFromPlanRefusesLocalPathsInPods(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := objstore.NewDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	plan := &ledger.Plan{SchemaVersion: ledger.SchemaVersion, Name: "local",
		Queries:  ledger.Queries{Location: "/var/run/secrets/kubernetes.io/serviceaccount/token", Count: 2},
		Database: ledger.Database{Location: "s3://dbs/nt", Name: "nt"},
		Search:   search.MustParse(search.Request{Program: "blastp", Outfmt: "6", MaxTargetSeqs: 500}),
		Chunks:   ledger.ChunkByQueries(2, 1)}
	if err := ledger.WritePlan(ctx, st, plan); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv(enginemetrics.NamespaceEnv, "")
	f := flags{campaign: dir}
	if _, err := fromPlan(ctx, &f); err != nil || f.queries != plan.Queries.Location {
		t.Errorf("outside a pod: queries %q, err %v; want the plan's path", f.queries, err)
	}
	// An operator's partition (BLASTFLEET_NAMESPACE), or any pod.
	for _, env := range []string{enginemetrics.NamespaceEnv, "KUBERNETES_SERVICE_HOST"} {
		t.Setenv(env, "x")
		f = flags{campaign: filepath.Clean(dir)}
		if _, err := fromPlan(ctx, &f); err == nil || !strings.Contains(err.Error(), "queries.location") {
			t.Errorf("with %s: err = %v, want one naming queries.location", env, err)
		}
		t.Setenv(env, "")
	}
}
