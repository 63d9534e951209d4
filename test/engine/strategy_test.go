package engine_e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/test/support/refsearch"
	"github.com/blastfleet/blastfleet/test/support/synth"
)

// strategies are the engine's output strategies (docs/engine.md).
var strategies = []string{"worker-merge", "worker-individual", "worker-collective", "master-writing"}

// Write buffers of the strategy runs: on a file, blocks of 1 MiB (a dozen
// blocks, each split between the workers by worker-collective); on S3 a
// first block of over 10 MiB, which worker-individual and worker-collective
// upload as two parts of at least 5 MiB from two ranks, then a short last.
const (
	fileBuffer = "1MiB"
	s3Buffer   = "10MiB"
)

// strategySummary is the part of --summary-json the strategy tests check.
type strategySummary struct {
	Strategy     string `json:"strategy"`
	QuerySync    bool   `json:"querySync"`
	BytesWritten int64  `json:"bytesWritten"`
	Ranks        []struct {
		Rank          int                `json:"rank"`
		Role          string             `json:"role"`
		Phases        map[string]float64 `json:"phases"`
		BytesWritten  int64              `json:"bytesWritten"`
		BlocksWritten int                `json:"blocksWritten"`
	} `json:"ranks"`
}

// strategyRun is one engine run of the strategy tests.
type strategyRun struct {
	strategy string
	sync     bool
	s3       bool
}

func (c strategyRun) String() string {
	sink := "file"
	if c.s3 {
		sink = "s3"
	}
	return fmt.Sprintf("%s/%s/query-sync=%v", sink, c.strategy, c.sync)
}

// TestStrategies runs every output strategy, with and without --query-sync,
// under mpirun on both sinks, on one database and query set whose output
// (alignment columns) is over 10 MiB, and requires every output to be
// byte-identical to worker-merge's, which equals the unsharded search. The
// summaries must show each strategy's traffic: who wrote, how many S3
// parts, and time in the sync phase exactly when ranks wait for others.
// A failure injected mid-write must leave no file, temp file, object or
// unfinished upload, whatever the strategy.
func TestStrategies(t *testing.T) {
	requireTools(t, "mpirun", "blastn", "makeblastdb")
	b := bins(t)
	f := newFixture(t, synth.Options{Seed: 11, Families: 3, Members: 60, MinLen: 1500, MaxLen: 2000,
		Mutation: 0.01, Queries: 60, QueryFrac: 0.9})
	const outfmt = "6 std qseq sseq"
	want := f.reference(t, outfmt)
	if len(want) <= 10<<20 {
		t.Fatalf("the reference is %d bytes; the S3 runs need over 10 MiB", len(want))
	}
	m := startMinIO(t, "out")
	db := filepath.Join(t.TempDir(), "db")
	shard(t, b.cli, f.fasta, 3, db, nil)

	// argv runs np ranks with one shard per task, so every query's lines
	// come from both workers and interleave.
	argv := func(t *testing.T, c strategyRun, out, summary string) []string {
		a := append(mpirun(3), b.engine, "--database", db, "--queries", f.queries, "--program", "blastn",
			"--outfmt", outfmt, "--output", out, "--cache-dir", filepath.Join(t.TempDir(), "cache"),
			"--group-bytes", "1", "--strategy", c.strategy, "--summary-json", summary)
		if c.s3 {
			a = append(a, "--write-buffer", s3Buffer)
		} else {
			a = append(a, "--write-buffer", fileBuffer)
		}
		if c.sync {
			a = append(a, "--query-sync")
		}
		return a
	}
	outputOf := func(t *testing.T, c strategyRun, i int) (out string, read func() []byte) {
		if c.s3 {
			key := fmt.Sprintf("run%02d.tsv", i)
			return "s3://out/" + key, func() []byte { return getObject(t, "s3://out/"+key) }
		}
		p := filepath.Join(t.TempDir(), "out.tsv")
		return p, func() []byte { return readFile(t, p) }
	}

	var runs []strategyRun
	for _, s3 := range []bool{false, true} {
		for _, s := range strategies {
			for _, sync := range []bool{false, true} {
				runs = append(runs, strategyRun{strategy: s, sync: sync, s3: s3})
			}
		}
	}
	// The first run, worker-merge on a file, is the one the others equal.
	var base []byte
	for i, c := range runs {
		ok := t.Run(c.String(), func(t *testing.T) {
			out, read := outputOf(t, c, i)
			sumPath := filepath.Join(t.TempDir(), "summary.json")
			r := mustRun(t, mpiTimeout, mpiEnv, argv(t, c, out, sumPath)...)
			got := read()
			t.Logf("%s: %d bytes in %s", c, len(got), r.elapsed.Round(time.Millisecond))
			if base == nil {
				if d := refsearch.Diff(got, want); d != "" {
					t.Fatalf("worker-merge differs from the unsharded search: %s\n%s", d, r)
				}
				base = got
			} else if !bytes.Equal(got, base) {
				t.Fatalf("output differs from worker-merge's: %s\n%s", refsearch.Diff(got, base), r)
			}
			var s strategySummary
			readJSON(t, sumPath, &s)
			checkStrategySummary(t, c, &s, int64(len(got)))
			if c.s3 {
				// Worker-merge and master-writing upload the first block
				// whole; the others in two parts of two ranks.
				wantParts := 2
				if c.strategy == "worker-individual" || c.strategy == "worker-collective" {
					wantParts = 3
				}
				if parts := partsOf(t, m, "out", strings.TrimPrefix(out, "s3://out/")); parts != wantParts {
					t.Errorf("%d bytes uploaded in %d parts, want %d", len(got), parts, wantParts)
				}
			}
		})
		if !ok && base == nil {
			t.Fatal("no worker-merge output to compare with")
		}
	}

	t.Run("fail mid-write", func(t *testing.T) {
		for i, c := range runs {
			if c.sync {
				continue
			}
			t.Run(c.String(), func(t *testing.T) {
				// On a file, the third block's write fails (two are in the
				// temp file); on S3, the write of the part holding byte
				// 7 MiB, after its bytes were uploaded.
				at := "2621440"
				if c.s3 {
					at = "7340032"
				}
				out := filepath.Join(t.TempDir(), "result.tsv")
				prefix := fmt.Sprintf("fail%02d/", i)
				if c.s3 {
					out = "s3://out/" + prefix + "result.tsv"
				}
				env := append([]string{"BLASTFLEET_FAIL_WRITE_AT=" + at}, mpiEnv...)
				r := run(t, mpiTimeout, env, argv(t, c, out, filepath.Join(t.TempDir(), "summary.json"))...)
				if r.exitCode == 0 {
					t.Fatalf("exit 0 with a write failure injected\n%s", r)
				}
				if !strings.Contains(r.stderr, "injected failure writing bytes") || !strings.Contains(r.stderr, "blastfleet-engine: error:") {
					t.Errorf("the error does not report the failed write\n%s", r)
				}
				if c.s3 {
					noObjects(t, m, "out", prefix, prefix+"result.tsv")
				} else {
					noOutputLeft(t, out)
				}
			})
		}
	})
}

// checkStrategySummary checks a run's summary against what its strategy
// does: which ranks write, and who waits in the sync phase.
func checkStrategySummary(t *testing.T, c strategyRun, s *strategySummary, size int64) {
	t.Helper()
	if s.Strategy != c.strategy || s.QuerySync != c.sync {
		t.Errorf("summary says strategy %q, query sync %v", s.Strategy, s.QuerySync)
	}
	if s.BytesWritten != size || len(s.Ranks) != 3 {
		t.Fatalf("summary: %d bytes written, %d ranks; want %d bytes and 3 ranks", s.BytesWritten, len(s.Ranks), size)
	}
	var workerBytes int64
	var collectiveSync float64
	writers := 0
	for _, r := range s.Ranks {
		var named float64
		for _, p := range []string{"setup", "distribution", "compute", "merge", "gather", "write", "sync"} {
			named += r.Phases[p]
		}
		if r.Phases["other"] < 0 || named <= 0 {
			t.Errorf("rank %d phases %v", r.Rank, r.Phases)
		}
		// In a collective write the workers wait for each other, but a
		// worker whose peers' pieces all came before it got there never
		// does (seen under load): the workers together must have waited.
		collective := !c.sync && c.strategy == "worker-collective" && r.Role == "worker"
		if collective {
			collectiveSync += r.Phases["sync"]
		} else if sync := r.Phases["sync"]; c.sync != (sync > 0) {
			t.Errorf("rank %d (%s) spent %.4fs in the sync phase; want time there: %v", r.Rank, r.Role, sync, c.sync)
		}
		if r.Role == "worker" {
			workerBytes += r.BytesWritten
		}
		if r.BytesWritten > 0 {
			writers++
		}
	}
	if !c.sync && c.strategy == "worker-collective" && collectiveSync <= 0 {
		t.Errorf("worker-collective: the workers spent no time in the sync phase; want their collective waits there")
	}
	master := s.Ranks[0]
	switch c.strategy {
	case "master-writing":
		if master.BytesWritten != size || writers != 1 || master.Phases["write"] <= 0 {
			t.Errorf("master-writing: the master wrote %d bytes (%d writing ranks, write phase %.4fs), want all %d and alone",
				master.BytesWritten, writers, master.Phases["write"], size)
		}
	default:
		if master.BytesWritten != 0 || workerBytes != size {
			t.Errorf("%s: the master wrote %d bytes, the workers %d; want 0 and %d", c.strategy, master.BytesWritten, workerBytes, size)
		}
	}
	if c.strategy != "worker-merge" && c.strategy != "master-writing" && writers != 2 {
		t.Errorf("%s: %d ranks wrote, want both workers", c.strategy, writers)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	if err := json.Unmarshal(readFile(t, path), v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
