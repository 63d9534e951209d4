package campaign_e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/engine"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// TestPoisonQueryProcesses makes one query fail every time (the engine's
// BLASTFLEET_FAIL_QUERIES hook, in the partition's environment): the
// campaign ends complete with exactly that query failed, its reason
// carrying exit code 99, and every other query's lines present.
func TestPoisonQueryProcesses(t *testing.T) {
	e := newEnv(t)
	const poison, poisonIndex = "query0007", 7
	var want bytes.Buffer
	n := 0
	for _, line := range strings.SplitAfter(string(e.f.want), "\n") {
		if strings.HasPrefix(line, poison+"\t") {
			n++
			continue
		}
		want.WriteString(line)
	}
	if n == 0 {
		t.Fatalf("%s has no hits in the reference: pick another poison query", poison)
	}
	loc := "s3://campaigns/poison"
	st := e.plan(t, loc, 3)
	p := startPartition(t, loc, "A", 3, []string{engine.FailQueriesEnv + "=" + poison})
	p.mustSucceed(t)
	s := verify(t, st, verifyOpts{want: want.Bytes(), failed: []int{poisonIndex}, parts: []*partition{p}, needResult: true})
	r := s.FailedQueries[0].Reason
	if r.ExitCode != 99 || !strings.Contains(r.StderrTail, poison) {
		t.Errorf("failure reason %+v: want exit code 99 and the query named in the stderr tail", r)
	}
	sum := p.readSummary(t)
	failedAttempts := 0
	for _, c := range readChunks(t, st) {
		for _, a := range c.attempts {
			if a.Failure != nil {
				failedAttempts++
			}
		}
	}
	logged := strings.Count(p.stderr.String(), `"msg"="chunk failed"`)
	t.Logf("poison %s: %d attempts in all (%d retries), %d leaf chunks; %d attempts failed in the ledger, the master logged %d chunk failures and its summary counts %d; reason: %s; %s",
		poison, s.Attempts, s.Retries, s.Chunks, failedAttempts, logged, sum.ChunksFailed, r, p.elapsed())
	// Each failed attempt is one chunk failure: a unit already failed must
	// not be failed again when its other in-flight tasks report failing.
	t.Run("one-failure-per-failed-attempt", func(t *testing.T) {
		if sum.ChunksFailed == failedAttempts && logged == failedAttempts {
			return
		}
		t.Errorf("%d chunk attempts failed (attempts.json), but the master failed chunks %d times (log) and its summary says chunksFailed=%d: "+
			"a unit is failed again for each of its in-flight tasks that fails (internal/engine/master.go, case e.Failed)",
			failedAttempts, logged, sum.ChunksFailed)
	})
}

// TestTruncatedQueries overwrites the queries object after planning with
// a shorter one: the engine must refuse, naming the SHA-256 mismatch,
// before any compute (no chunk is ever leased).
func TestTruncatedQueries(t *testing.T) {
	e := newEnv(t)
	loc := "s3://campaigns/truncated"
	st := e.plan(t, loc, 3)
	q := e.f.queryBytes
	cut := bytes.Index(q[len(q)/2:], []byte("\n>")) + len(q)/2 + 1
	putObject(t, e.qloc, q[:cut])
	p := startPartition(t, loc, "A", 3, nil)
	code := p.wait(t)
	stderr := p.stderr.String()
	if code == 0 {
		t.Fatalf("the engine accepted a truncated queries object\n%s", stderr)
	}
	if !strings.Contains(stderr, "SHA-256") || !strings.Contains(stderr, sha256Hex(q)) || !strings.Contains(stderr, sha256Hex(q[:cut])) {
		t.Errorf("the error does not name the SHA-256 mismatch (want %s and %s):\n%s", sha256Hex(q[:cut]), sha256Hex(q), stderr)
	}
	if l := p.leased(); len(l) > 0 || strings.Contains(stderr, "leased chunk") {
		t.Errorf("chunks were leased before the check: %v", l)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if objs, err := st.List(ctx, "chunks/"); err != nil || len(objs) > 0 {
		t.Errorf("the ledger has %d chunk objects after a refused start (%v)", len(objs), err)
	}
	for _, line := range strings.Split(stderr, "\n") {
		if strings.Contains(line, "error:") {
			t.Logf("refused in %s: %s", p.elapsed(), line)
		}
	}
}

// TestCorruptedResult flips bytes in a committed chunk's result object
// (same size, so only its SHA-256 tells): reading the results voids the
// chunk, a new partition redoes it, and the output is identical.
func TestCorruptedResult(t *testing.T) {
	e := newEnv(t)

	// After completion: StreamResults voids the chunk.
	t.Run("complete", func(t *testing.T) {
		loc := "s3://campaigns/corrupt-complete"
		st := e.plan(t, loc, 3)
		a := startPartition(t, loc, "A", 3, []string{realBLAST()})
		a.mustSucceed(t)
		r := corruptOne(t, st, "chunks/000000003-000000006/")
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		err := ledger.StreamResults(ctx, st, &bytes.Buffer{})
		if !errors.Is(err, ledger.ErrIncomplete) || !strings.Contains(err.Error(), "sha256") {
			t.Fatalf("StreamResults over a corrupted result: %v; want a voided chunk (ErrIncomplete) naming the checksum", err)
		}
		s, err := ledger.ReadStatus(ctx, st)
		if err != nil || s.Complete || len(s.Missing) != 1 || s.Missing[0].String() != r {
			t.Fatalf("status after the void: %+v, %v; want chunk %s missing", s, err, r)
		}
		b := startPartition(t, loc, "B", 3, []string{realBLAST()})
		b.mustSucceed(t)
		if got := b.committed(); len(got) != 1 || got[0] != r {
			t.Errorf("partition B committed %v, want just the voided chunk %s", got, r)
		}
		verify(t, st, verifyOpts{want: e.f.want, parts: []*partition{a, b}, voids: 1, needResult: true})
	})

	// Before assembly: a partition dies, a committed result is corrupted,
	// and the next partition must find it when it assembles and redo it.
	t.Run("before-assembly", func(t *testing.T) {
		loc := "s3://campaigns/corrupt-early"
		st := e.plan(t, loc, 3)
		a := startPartition(t, loc, "A", 3, nil)
		a.waitCommitted(t, 2)
		a.killAll()
		waitFor(t, 10*time.Second, "partition A to die", a.exited)
		first := a.committed()[0]
		corruptOne(t, st, rangeDir(first))
		b := startPartition(t, loc, "B", 3, []string{realBLAST()})
		code := b.wait(t)
		redone := false
		for _, c := range b.committed() {
			redone = redone || c == first
		}
		parts := []*partition{a, b}
		if code != 0 || !redone {
			t.Errorf("partition B exited %d, redid the corrupted chunk %s: %v; a partition that finds a bad result while assembling must redo it, not stop\nB's last lines:\n%s",
				code, first, redone, lastLines(b.stderr.String(), 4))
			c := startPartition(t, loc, "C", 3, []string{realBLAST()})
			c.mustSucceed(t)
			t.Logf("a third partition C finished the campaign: committed %v", c.committed())
			parts = append(parts, c)
		}
		verify(t, st, verifyOpts{want: e.f.want, parts: parts, voids: 1, needResult: true})
	})
}

// rangeDir is the chunk directory of a range as the engine logs it, "[3,6)".
func rangeDir(r string) string {
	var first, end int
	if _, err := fmt.Sscanf(r, "[%d,%d)", &first, &end); err != nil {
		panic(fmt.Sprintf("range %q: %v", r, err))
	}
	return fmt.Sprintf("chunks/%09d-%09d/", first, end)
}

// corruptOne flips bytes in the committed result of the chunk at dir,
// keeping its size, and returns the chunk's range.
func corruptOne(t *testing.T, st objstore.Store, dir string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, c := range readChunks(t, st) {
		if c.dir != dir {
			continue
		}
		key, _ := c.commit["resultKey"].(string)
		if c.outcome() != "committed" || key == "" {
			t.Fatalf("chunk %s is not committed: %v", c.r, c.commit)
		}
		data, _, err := st.GetBytes(ctx, key)
		if err != nil || len(data) < 10 {
			t.Fatalf("reading %s: %v (%d bytes)", key, err, len(data))
		}
		for i := len(data) / 3; i < len(data)/3+4; i++ {
			data[i] ^= 0x20
		}
		if err := st.Put(ctx, key, bytes.NewReader(data), int64(len(data))); err != nil {
			t.Fatal(err)
		}
		t.Logf("corrupted %s (%d bytes, size unchanged)", key, len(data))
		return c.r
	}
	t.Fatalf("no chunk at %s", dir)
	return ""
}

// TestInvalidSearchStopsCampaign: a plan whose options BLAST+ refuses
// (written here directly, past the planning Job's check) fails its first
// chunk once, records the campaign invalid with BLAST's reason, and every
// partition stops: no retries, no split down to single queries.
func TestInvalidSearchStopsCampaign(t *testing.T) {
	e := newEnv(t)
	bad := *e.f
	bad.options = []string{"-word_size=3"} // blastn wants at least 4
	eb := *e
	eb.f = &bad
	loc := "s3://campaigns/" + campaignName(t)
	st := eb.plan(t, loc, 5)
	a := startPartition(t, loc, "A", 3, nil)
	b := startPartition(t, loc, "B", 2, nil)
	for _, p := range []*partition{a, b} {
		if code := p.wait(t); code == 0 {
			t.Errorf("partition %s exited 0 on a search BLAST+ refuses\nstderr:\n%s", p.id, p.stderr.String())
		}
		if !strings.Contains(p.stderr.String(), "the campaign's search is invalid") {
			t.Errorf("partition %s does not say the search is invalid:\n%s", p.id, p.stderr.String())
		}
	}
	s, err := ledger.ReadStatus(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if s.Invalid == nil || !s.Invalid.Config || !strings.Contains(s.Invalid.Message, `"word_size". Illegal value, expected >=4`) {
		t.Errorf("ledger status invalid = %+v, want BLAST's reason", s.Invalid)
	}
	// At most one attempt per partition that got to run a task before the
	// mark; never the maxAttempts x chunks of retries and splits.
	if s.Attempts > 2 || s.Retries > 0 || s.Failed > 0 || s.Chunks != len(ledger.ChunkByQueries(e.f.nQueries, 5)) {
		t.Errorf("after the first refusal: %d attempts, %d retries, %d chunks failed, %d chunks: want no retry and no split", s.Attempts, s.Retries, s.Failed, s.Chunks)
	}
}
