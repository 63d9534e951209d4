package campaign_e2e

import (
	"bytes"
	"testing"

	"github.com/blastfleet/blastfleet/internal/refsearch"
)

// TestKillPartitionBatchingData is the campaign path of the determinism
// matrix (test/engine): on data where one blastn run of all queries is not
// the queries-alone answer, two partitions of different sizes share the
// campaign, one is SIGKILLed mid-run and the other takes its chunks over;
// the result is still each query searched alone, byte for byte.
func TestKillPartitionBatchingData(t *testing.T) {
	f := getBatchingFixture(t)
	if bytes.Equal(f.oneRun, f.want) {
		t.Fatal("one blastn run of all queries equals the queries-alone reference: the fixture no longer shows BLAST's batching")
	}
	t.Logf("one blastn run differs from the queries alone: %s", refsearch.Diff(f.oneRun, f.want))
	e := newEnvWith(t, f)
	loc := "s3://campaigns/" + campaignName(t)
	st := e.plan(t, loc, 10)
	a, b, _ := killOneOfTwo(t, loc, newRand(1), 3, 2)
	verify(t, st, verifyOpts{want: f.want, parts: []*partition{a, b}, needResult: true, f: f})
}
