package campaign_e2e

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/ledger"
)

// TestTwoAndThreePartitions runs one partition, then two and three
// concurrent partitions (separate mpirun runs) on campaigns of their own:
// every run's result equals the unsharded search and the single-partition
// run. The three-partition case is a directory campaign. The single run
// also measures the ledger's overhead.
func TestTwoAndThreePartitions(t *testing.T) {
	e := newEnv(t)
	f := e.f

	// One partition: the baseline, and the overhead measurement (with
	// BLAST at its real speed).
	st := e.plan(t, "s3://campaigns/single", 3)
	before := e.requests(t)
	p := startPartition(t, "s3://campaigns/single", "solo", 3, []string{realBLAST()})
	p.mustSucceed(t)
	reqs := e.requests(t).sub(before)
	verify(t, st, verifyOpts{want: f.want, parts: []*partition{p}, noOrphans: true, needResult: true})
	single, _, err := st.GetBytes(context.Background(), ledger.ResultKey)
	if err != nil {
		t.Fatal(err)
	}
	sum := p.readSummary(t)
	chunks := sum.ChunksCommitted
	t.Logf("single partition: %d chunks in %s; BLAST %.2fs in all, %.3fs per chunk",
		chunks, p.elapsed(), sum.BlastSeconds(), sum.BlastSeconds()/float64(chunks))
	t.Logf("single partition: exited %s after its last commit (assembly, and waiting for the ledger's retry)",
		p.end.Sub(p.stderr.lastCommitAt()).Round(time.Millisecond))
	t.Logf("single partition: MinIO saw %g S3 requests (%.1f per chunk, ledger and data): %s",
		reqs.total(), reqs.total()/float64(chunks), reqs.perChunk(chunks))
	perChunk, total, secs, n := ledgerReplay(t, st, "s3://campaigns/replay")
	t.Logf("ledger alone (in-process replay through CountingStore, %d chunks): %.1f requests and %.1f ms per chunk (incl. one result Put and the final Assemble) against %.3fs BLAST per chunk; per chunk %v",
		n, total/float64(n), 1000*secs/float64(n), sum.BlastSeconds()/float64(chunks), perChunk)

	for _, c := range []struct {
		n   int
		dir bool
	}{{2, false}, {3, true}} {
		t.Run(fmt.Sprintf("partitions=%d/dir=%v", c.n, c.dir), func(t *testing.T) {
			loc := fmt.Sprintf("s3://campaigns/multi-%d", c.n)
			st := e.plan(t, loc, 3)
			if c.dir {
				loc = filepath.Join(t.TempDir(), "campaign")
				st = e.planWith(t, loc, 3, f.shards, f.queries)
			}
			start := time.Now()
			var parts []*partition
			for i := 0; i < c.n; i++ {
				parts = append(parts, startPartition(t, loc, fmt.Sprintf("p%d", i), 3, nil))
			}
			committed := 0
			for _, p := range parts {
				p.mustSucceed(t)
				s := p.readSummary(t)
				committed += s.ChunksCommitted
				t.Logf("partition %s: %d chunks committed (%v), %s", p.id, s.ChunksCommitted, p.committed(), p.elapsed())
			}
			t.Logf("%d partitions finished the campaign in %s", c.n, time.Since(start).Round(time.Millisecond))
			s := verify(t, st, verifyOpts{want: f.want, parts: parts, noOrphans: true, needResult: true})
			if committed != s.Committed {
				t.Errorf("partitions' summaries count %d commits, the ledger %d chunks", committed, s.Committed)
			}
			res, _, err := st.GetBytes(context.Background(), ledger.ResultKey)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(res, single) {
				t.Errorf("%d partitions' result differs from the single partition's", c.n)
			}
		})
	}
}
