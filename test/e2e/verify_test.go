package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/refsearch"
)

// expect is what a finished campaign's ledger must show besides a
// complete, correct result.
type expect struct {
	// maxAttempts bounds every chunk's attempts (1: nothing was redone).
	maxAttempts int
	// retried: some chunk was attempted again (the fault hit a lease).
	retried bool
	// problemsOK: voided commits are acceptable (object store restarts);
	// they are logged.
	problemsOK bool
}

// ledgerStore opens the campaign's ledger at status.location.
func (tg *target) ledgerStore(t *testing.T, c *v1alpha1.SearchCampaign) objstore.Store {
	t.Helper()
	prefix, ok := strings.CutPrefix(c.Status.Location, "s3://"+tg.bucket+"/")
	if !ok {
		t.Fatalf("campaign location %q is not in bucket %s", c.Status.Location, tg.bucket)
	}
	st, err := tg.store(prefix)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// verify checks a Complete campaign: the merged result equals the
// unsharded BLAST run byte for byte, each query's lines come once, every
// chunk has exactly one committed result (commit.json, whose result
// object exists with the recorded size), attempts are as expected, and
// (on the local stack) no partition's log shows a chunk committed twice.
func (tg *target) verify(t *testing.T, c *v1alpha1.SearchCampaign, f *fixture, e expect) *ledger.Status {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st := tg.ledgerStore(t, c)
	s, err := ledger.ReadStatus(ctx, st)
	if err != nil {
		t.Fatalf("reading the ledger of %s: %v", c.Name, err)
	}
	if !s.Complete || s.Committed != s.Chunks || s.Failed != 0 || s.QueriesDone != f.nQueries {
		t.Fatalf("ledger of %s: %+v; want every chunk committed, %d queries done", c.Name, s, f.nQueries)
	}
	if len(s.Problems) > 0 {
		if !e.problemsOK {
			t.Errorf("the ledger reports problems: %v", s.Problems)
		}
		t.Logf("the ledger voided bad commits and redid them: %v", s.Problems)
	}
	if c.Status.Queries.Done != int32(f.nQueries) || c.Status.Chunks.Committed != int32(s.Chunks) {
		t.Errorf("campaign status %+v / %+v; the ledger has %d chunks", c.Status.Queries, c.Status.Chunks, s.Chunks)
	}

	var got bytes.Buffer
	if err := ledger.StreamResults(ctx, st, &got); err != nil {
		t.Fatalf("streaming the results: %v", err)
	}
	if !bytes.Equal(got.Bytes(), f.want) {
		t.Fatalf("the merged result of %s differs from blastn of the unsharded database (%d vs %d bytes): %s",
			c.Name, got.Len(), len(f.want), refsearch.Diff(got.Bytes(), f.want))
	}
	checkEachQueryOnce(t, got.Bytes())
	assembled, _, err := st.GetBytes(ctx, ledger.ResultKey)
	if err != nil || !bytes.Equal(assembled, f.want) {
		t.Errorf("the assembled result (status.result %s): %d bytes, %v; want the reference's %d", c.Status.Result, len(assembled), err, len(f.want))
	}
	if sum := sha256.Sum256(f.want); c.Status.ResultSHA256 != hex.EncodeToString(sum[:]) || c.Status.ResultBytes != int64(len(f.want)) {
		t.Errorf("status.resultSHA256 %q (%d bytes), want the reference's %x (%d bytes)", c.Status.ResultSHA256, c.Status.ResultBytes, sum, len(f.want))
	}

	chunks := readChunks(t, ctx, st)
	if len(chunks) != s.Chunks {
		t.Errorf("%d chunk directories, the ledger counts %d chunks (none should have been split)", len(chunks), s.Chunks)
	}
	retried, orphans := 0, 0
	for _, ch := range chunks {
		if ch.commit.Outcome != "committed" {
			t.Errorf("chunk %s: outcome %q, want committed", ch.r, ch.commit.Outcome)
			continue
		}
		if size, ok := ch.results[ch.commit.ResultKey]; !ok || size != ch.commit.Size {
			t.Errorf("chunk %s: committed result %s missing or of the wrong size (%d, marker says %d)", ch.r, ch.commit.ResultKey, size, ch.commit.Size)
		}
		orphans += max(0, len(ch.results)-1) // results of killed attempts, never committed
		if n := len(ch.attempts); n < 1 || n > e.maxAttempts {
			t.Errorf("chunk %s: %d attempts, want 1 to %d", ch.r, n, e.maxAttempts)
		} else if n > 1 {
			retried++
		}
	}
	if e.retried && retried == 0 {
		t.Errorf("no chunk was attempted twice, yet the fault hit a partition holding a lease")
	}
	t.Logf("%s: %d chunks, %d attempts (%d chunks retried), %d uncommitted result objects from killed attempts",
		c.Name, s.Chunks, s.Attempts, retried, orphans)

	if tg.stack != nil {
		commits := map[string][]string{}
		for job, log := range tg.stack.launcherLogs(t, tg.ns, c.Name) {
			for _, m := range committedRe.FindAllStringSubmatch(log, -1) {
				commits[m[1]] = append(commits[m[1]], job)
			}
		}
		for r, by := range commits {
			if len(by) > 1 {
				t.Errorf("chunk %s committed %d times, by the partitions' logs: %v", r, len(by), by)
			}
		}
		if len(commits) > s.Committed {
			t.Errorf("the partitions logged %d committed chunks, the ledger holds %d", len(commits), s.Committed)
		}
	}
	return s
}

// committedRe finds the engine master's log line for a commit.
var committedRe = regexp.MustCompile(`"msg"="committed chunk" "queries"="(\[\d+,\d+\))"`)

// checkEachQueryOnce: every query's lines are one contiguous run.
func checkEachQueryOnce(t *testing.T, out []byte) {
	t.Helper()
	if q := refsearch.SplitQuery(out); q != "" {
		t.Errorf("query %s's lines appear in two places: a chunk's result was included twice", q)
	}
}

// chunkRecords are a chunk's ledger records, read as raw objects.
type chunkRecords struct {
	r        string
	commit   commitRecord
	attempts []json.RawMessage
	results  map[string]int64 // result-* objects: key (under the ledger) and size
}

type commitRecord struct {
	Outcome   string `json:"outcome"`
	ResultKey string `json:"resultKey"`
	Size      int64  `json:"size"`
}

func readChunks(t *testing.T, ctx context.Context, st objstore.Store) map[string]*chunkRecords {
	t.Helper()
	infos, err := st.List(ctx, "chunks/")
	if err != nil {
		t.Fatalf("listing chunks: %v", err)
	}
	out := map[string]*chunkRecords{}
	for _, in := range infos {
		dir, name, ok := strings.Cut(strings.TrimPrefix(in.Key, "chunks/"), "/")
		if !ok {
			continue
		}
		var first, end int
		if _, err := fmt.Sscanf(dir, "%d-%d", &first, &end); err != nil {
			continue
		}
		c := out[dir]
		if c == nil {
			c = &chunkRecords{r: fmt.Sprintf("[%d,%d)", first, end), results: map[string]int64{}}
			out[dir] = c
		}
		switch {
		case name == "commit.json":
			b, _, err := st.GetBytes(ctx, in.Key)
			if err != nil || json.Unmarshal(b, &c.commit) != nil {
				t.Errorf("chunk %s: unreadable commit.json: %v", c.r, err)
			}
		case name == "attempts.json":
			b, _, err := st.GetBytes(ctx, in.Key)
			var rec struct {
				Attempts []json.RawMessage `json:"attempts"`
			}
			if err != nil || json.Unmarshal(b, &rec) != nil {
				t.Errorf("chunk %s: unreadable attempts.json: %v", c.r, err)
			}
			c.attempts = rec.Attempts
		case strings.HasPrefix(name, "result-"):
			c.results[in.Key] = in.Size
		}
	}
	return out
}
