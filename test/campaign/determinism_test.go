package campaign_e2e

import (
	"bytes"
	"testing"

	"github.com/blastfleet/blastfleet/test/support/refsearch"
)

// TestKillPartitionBatchingData is the campaign path of the determinism
// matrix (test/engine): on data where BLAST+'s batches answer otherwise
// than each query alone, two partitions of different sizes share the
// campaign, one is SIGKILLed mid-run and the other takes its chunks over;
// the result is still one blastn run of the file in BLAST+'s batches,
// byte for byte.
func TestKillPartitionBatchingData(t *testing.T) {
	f := getBatchingFixture(t)
	if bytes.Equal(f.alone, f.want) {
		t.Fatal("each query alone equals BLAST+'s batches: the fixture no longer shows BLAST's batching")
	}
	t.Logf("each query alone differs from BLAST+'s batches: %s", refsearch.Diff(f.alone, f.want))
	e := newEnvWith(t, f)
	loc := "s3://campaigns/" + campaignName(t)
	st := e.plan(t, loc, 10)
	// Four BLAST+ batches make about four chunks, which two partitions
	// share: A is killed within its first chunk, or it may have searched
	// its share before the fault.
	a, b, _ := killOneOfTwo(t, loc, newRand(1), 3, 2, 0)
	verify(t, st, verifyOpts{want: f.want, parts: []*partition{a, b}, needResult: true, f: f})
}
