package engine_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/engine"
	"github.com/blastfleet/blastfleet/internal/engine/output"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/test/support/refsearch"
)

// TestStrategiesInCampaign runs a campaign (several chunks, so several
// outputs in flight at once) with each strategy but worker-merge (which the
// campaign tests cover), small write blocks and --query-sync, while a poison
// query fails its chunks: barriers and collective writes of abandoned
// chunks must not hang the partition, and every other query's result must
// be exact. Each rank must report time in the sync phase.
func TestStrategiesInCampaign(t *testing.T) {
	f := synthFixture(t, nuclFamilies())
	s := search{program: blast.Blastn, outfmt: "6 std", workers: 3}
	want := s.reference(t, f, false)
	var expect bytes.Buffer
	for _, line := range strings.SplitAfter(string(want), "\n") {
		if !strings.HasPrefix(line, "query0005\t") {
			expect.WriteString(line)
		}
	}
	db := f.shards(t, 3)
	t.Setenv(engine.FailQueriesEnv, "query0005")
	for _, name := range []string{"worker-individual", "worker-collective", "master-writing"} {
		t.Run(name, func(t *testing.T) {
			loc, st := planCampaign(t, f, db, s, 10, 30)
			l, err := ledger.Open(context.Background(), st, ledger.Options{})
			if err != nil {
				t.Fatal(err)
			}
			cfg := s.config(t, db, f.queries, loc)
			if cfg.Strategy, err = output.ParseStrategy(name); err != nil {
				t.Fatal(err)
			}
			cfg.QuerySync, cfg.WriteBuffer = true, 4096
			cfg.Campaign = &engine.Campaign{Location: loc, Ledger: l, Holder: "p0"}
			sum, err := engine.RunLocal(context.Background(), cfg, s.workers)
			if err != nil {
				t.Fatal(err)
			}
			status, err := ledger.ReadStatus(context.Background(), st)
			if err != nil {
				t.Fatal(err)
			}
			if !status.Complete || status.QueriesFailed != 1 {
				t.Fatalf("status %+v, want complete with query 5 failed", status)
			}
			var got bytes.Buffer
			if err := ledger.StreamResults(context.Background(), st, &got); err != nil {
				t.Fatal(err)
			}
			if d := refsearch.Diff(got.Bytes(), expect.Bytes()); d != "" {
				t.Fatalf("every other query must be exact: %s", d)
			}
			if sum.Strategy != name || !sum.QuerySync || len(sum.Ranks) != 4 {
				t.Fatalf("summary: strategy %q, query sync %v, %d ranks", sum.Strategy, sum.QuerySync, len(sum.Ranks))
			}
			for _, r := range sum.Ranks {
				if r.Phases["sync"] <= 0 {
					t.Errorf("rank %d (%s) spent no time in the sync phase under --query-sync: %v", r.Rank, r.Role, r.Phases)
				}
			}
		})
	}
}
