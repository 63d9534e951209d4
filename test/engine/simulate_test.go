package engine_e2e

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/engine/simulate"
)

// simArgs is a simulated search small enough to take about a second
// under mpirun with 9 ranks: 30 generated queries, 16 shards, every result
// kept, written in blocks of at least 64 KiB.
func simArgs(seed int) []string {
	return []string{"--backend", "simulate", "--sim-seed", fmt.Sprint(seed), "--sim-queries", "30",
		"--sim-shards", "16", "--sim-subjects", "5000", "--sim-results", "50-300", "--sim-speed", "200",
		"--max-target-seqs", "100000", "--write-buffer", "64KiB"}
}

// simSummary is the part of --summary-json the simulate tests check.
type simSummary struct {
	Backend    string `json:"backend"`
	Schedule   string `json:"schedule"`
	Strategy   string `json:"strategy"`
	Queries    int    `json:"queries"`
	Simulation *struct {
		Seed uint64 `json:"seed"`
	} `json:"simulation"`
	Ranks []struct {
		Rank   int                `json:"rank"`
		Role   string             `json:"role"`
		Tasks  int                `json:"tasks"`
		Phases map[string]float64 `json:"phases"`
	} `json:"ranks"`
}

// TestSimulateSameSeedSameOutput runs the simulate backend under mpirun
// with 2, 5 and 9 ranks, every strategy, the static schedules and both
// sinks, and requires one seed's output to be the same bytes every time,
// and another seed's to differ. A --queries file holding the generated
// queries gives the same output too.
func TestSimulateSameSeedSameOutput(t *testing.T) {
	requireTools(t, "mpirun")
	b := bins(t)
	startMinIO(t, "out")
	cases := []struct {
		np    int
		flags []string
		s3    bool
	}{
		{2, nil, false}, // the base: one worker
		{5, nil, false},
		{9, []string{"--group-bytes", "1"}, false},
		{5, []string{"--strategy", "worker-individual", "--group-bytes", "1"}, false},
		{5, []string{"--strategy", "worker-collective", "--query-sync"}, false},
		{9, []string{"--strategy", "master-writing", "--schedule", "length-split"}, false},
		{5, []string{"--strategy", "worker-merge", "--schedule", "weight-split", "--group-bytes", "1", "--query-sync"}, false},
		{9, []string{"--strategy", "worker-collective", "--schedule", "weight-split"}, false},
		{3, []string{"--strategy", "worker-individual", "--schedule", "length-split"}, true},
	}
	var base []byte
	for i, c := range cases {
		name := fmt.Sprintf("np=%d/%s", c.np, strings.Join(c.flags, " "))
		ok := t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.tsv")
			read := func() []byte { return readFile(t, out) }
			if c.s3 {
				out = fmt.Sprintf("s3://out/sim%02d.tsv", i)
				read = func() []byte { return getObject(t, out) }
			}
			sumPath := filepath.Join(t.TempDir(), "summary.json")
			argv := append(append(append(mpirun(c.np), b.engine, "--output", out, "--summary-json", sumPath), simArgs(1)...), c.flags...)
			r := mustRun(t, mpiTimeout, mpiEnv, argv...)
			got := read()
			t.Logf("%d bytes in %s", len(got), r.elapsed.Round(time.Millisecond))
			if base == nil {
				if n := countLines(got); n < 30*50 {
					t.Fatalf("%d lines; want every result of 30 queries (at least 50 each)", n)
				}
				base = got
			} else if !bytes.Equal(got, base) {
				t.Fatalf("output (%d bytes) differs from the 2-rank run's (%d bytes)\n%s", len(got), len(base), r)
			}
			var s simSummary
			readJSON(t, sumPath, &s)
			if s.Backend != "simulate" || s.Simulation == nil || s.Simulation.Seed != 1 || s.Queries != 30 || len(s.Ranks) != c.np {
				t.Errorf("summary: backend %q, simulation %v, %d queries, %d ranks", s.Backend, s.Simulation, s.Queries, len(s.Ranks))
			}
			for _, rk := range s.Ranks {
				if rk.Role == "worker" && rk.Tasks > 0 && !(rk.Phases["compute"] > 0) {
					t.Errorf("rank %d ran %d tasks with no compute time: %v", rk.Rank, rk.Tasks, rk.Phases)
				}
			}
		})
		if !ok && base == nil {
			t.Fatal("no base output to compare with")
		}
	}

	t.Run("queries file", func(t *testing.T) {
		// The generated queries as FASTA: same ids and lengths, same hits.
		c := simulate.DefaultConfig()
		qs, err := simulate.Queries(1, 30, c.QuerySizes)
		if err != nil {
			t.Fatal(err)
		}
		var fa bytes.Buffer
		if err := simulate.WriteFASTA(&fa, qs); err != nil {
			t.Fatal(err)
		}
		q := filepath.Join(t.TempDir(), "q.fa")
		writeFile(t, q, fa.Bytes())
		out := filepath.Join(t.TempDir(), "out.tsv")
		var args []string
		for i, a := range simArgs(1) {
			if a == "--sim-queries" || (i > 0 && simArgs(1)[i-1] == "--sim-queries") {
				continue
			}
			args = append(args, a)
		}
		mustRun(t, mpiTimeout, mpiEnv, append(append(mpirun(4), b.engine, "--queries", q, "--output", out), args...)...)
		if got := readFile(t, out); !bytes.Equal(got, base) {
			t.Fatalf("output from --queries (%d bytes) differs from the generated queries' (%d bytes)", len(got), len(base))
		}
	})

	t.Run("another seed", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out.tsv")
		mustRun(t, mpiTimeout, mpiEnv, append(append(mpirun(5), b.engine, "--output", out), simArgs(2)...)...)
		if got := readFile(t, out); bytes.Equal(got, base) || len(got) == 0 {
			t.Fatalf("seed 2 wrote %d bytes, the same as seed 1's", len(got))
		}
	})
}
