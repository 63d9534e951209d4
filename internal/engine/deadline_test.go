package engine_test

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/engine"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/test/support/refsearch"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// hangOn puts a blastn on PATH that hangs when its query file holds id
// and is the real blastn otherwise.
func hangOn(t *testing.T, id string) {
	t.Helper()
	real, err := exec.LookPath("blastn")
	if err != nil {
		t.Skip("no blastn")
	}
	testenv.FakeBLAST(t, `q=""
prev=""
for a in "$@"; do
  [ "$prev" = "-query" ] && q="$a"
  prev="$a"
done
if grep -q '^>`+id+`\b' "$q"; then exec sleep 600; fi
exec `+real+` "$@"
`)
}

// A BLAST that hangs on one query no longer holds its chunk (renewing the
// lease) forever: each run is killed at the task's deadline, counted as an
// ordinary failure, and the chunk is retried and split down to that query,
// which is recorded failed with the deadline as the reason; every other
// query is BLAST's.
func TestCampaignHungBLAST(t *testing.T) {
	f := synthFixture(t, nuclFamilies())
	s := search{program: blast.Blastn, outfmt: "6 std", workers: 2}
	want := s.reference(t, f, false)
	db := f.shards(t, 1)
	loc, st := planCampaign(t, f, db, s, 4, 30)
	hangOn(t, "query0005")
	l, err := ledger.Open(context.Background(), st, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := s.config(t, db, l.Plan().Queries.Location, loc)
	cfg.Campaign = &engine.Campaign{Location: loc, Ledger: l, Holder: "p0"}
	cfg.TaskLimits = engine.TaskLimits{Factor: 5, Min: 2 * time.Second, Max: 4 * time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if _, err := engine.RunLocal(ctx, cfg, s.workers); err != nil {
		t.Fatal(err)
	}
	status, err := ledger.ReadStatus(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if !status.Complete || status.QueriesFailed != 1 || len(status.FailedQueries) != 1 || status.FailedQueries[0].ID != "query0005" {
		t.Fatalf("status %+v, want complete with query0005 failed", status)
	}
	if r := status.FailedQueries[0].Reason.Message; !strings.Contains(r, "deadline") || !strings.Contains(r, "query0005") {
		t.Errorf("failure reason %q does not name the deadline and the query", r)
	}
	var got, expect bytes.Buffer
	if err := ledger.StreamResults(context.Background(), st, &got); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.SplitAfter(string(want), "\n") {
		if !strings.HasPrefix(line, "query0005\t") {
			expect.WriteString(line)
		}
	}
	if d := refsearch.Diff(got.Bytes(), expect.Bytes()); d != "" {
		t.Fatalf("every other query must be done: %s", d)
	}
	if out, _ := exec.Command("pgrep", "-f", "sleep 600").Output(); len(out) > 0 {
		t.Errorf("hung BLAST processes left: %s", out)
	}
}
