package engine_e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/test/support/refsearch"
)

// mpiTimeout bounds one mpirun; a hang is killed and fails the test.
const mpiTimeout = 120 * time.Second

// summaryJSON is the part of --summary-json the tests check.
type summaryJSON struct {
	Queries    int     `json:"queries"`
	Shards     int     `json:"shards"`
	Hits       int64   `json:"hits"`
	Efficiency float64 `json:"parallelEfficiency"`
	Ranks      []struct {
		Rank  int    `json:"rank"`
		Role  string `json:"role"`
		Tasks int    `json:"tasks"`
	} `json:"ranks"`
}

func readSummary(t *testing.T, path string) summaryJSON {
	t.Helper()
	var s summaryJSON
	if err := json.Unmarshal(readFile(t, path), &s); err != nil {
		t.Fatalf("--summary-json %s: %v", path, err)
	}
	return s
}

// TestMPIEqualsUnsharded runs the engine binary under mpirun with 3, 4 and
// 5 ranks on a database sharded by the CLI, and requires its output to equal
// the unsharded BLAST search byte for byte.
func TestMPIEqualsUnsharded(t *testing.T) {
	requireTools(t, "mpirun", "blastn", "makeblastdb")
	b := bins(t)
	f := newFixture(t, nuclFamilies())
	const outfmt = "6 std"
	want := f.reference(t, outfmt)
	db := filepath.Join(t.TempDir(), "db")
	shard(t, b.cli, f.fasta, 3, db, nil)

	cases := []struct {
		np         int
		groupBytes bool // one shard per task: the merge spans tasks
	}{
		{3, false},
		{4, true},
		{5, true},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("np=%d/groupBytes=%v", c.np, c.groupBytes), func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out.tsv")
			sumPath := filepath.Join(dir, "summary.json")
			argv := append(mpirun(c.np), b.engine, "--database", db, "--queries", f.queries,
				"--program", "blastn", "--outfmt", outfmt, "--output", out,
				"--cache-dir", filepath.Join(dir, "cache"), "--summary-json", sumPath)
			if c.groupBytes {
				argv = append(argv, "--group-bytes", "1")
			}
			r := mustRun(t, mpiTimeout, mpiEnv, argv...)
			t.Logf("np=%d: %s", c.np, r.elapsed.Round(time.Millisecond))
			got := readFile(t, out)
			if d := refsearch.Diff(got, want); d != "" {
				t.Fatalf("mpirun -np %d: merged output differs from the unsharded search: %s\n%s", c.np, d, r)
			}
			s := readSummary(t, sumPath)
			if len(s.Ranks) != c.np {
				t.Errorf("summary has %d rank entries, want %d (mpirun -np %d)", len(s.Ranks), c.np, c.np)
			}
			for i, rk := range s.Ranks {
				role := "worker"
				if i == 0 {
					role = "master"
				}
				if rk.Rank != i || rk.Role != role {
					t.Errorf("summary ranks[%d] = rank %d role %q, want rank %d role %q", i, rk.Rank, rk.Role, i, role)
				}
			}
			if !(s.Efficiency > 0) {
				t.Errorf("summary parallelEfficiency = %v, want > 0", s.Efficiency)
			}
			if s.Shards != 3 || s.Queries != 30 {
				t.Errorf("summary: %d shards, %d queries; want 3 and 30", s.Shards, s.Queries)
			}
			if lines := int64(countLines(got)); s.Hits != lines {
				t.Errorf("summary reports %d hits, the output has %d lines", s.Hits, lines)
			}
			if _, err := os.Stat(filepath.Join(dir, "cache")); err != nil {
				t.Errorf("--cache-dir was not used: %v", err)
			}
		})
	}
}

func countLines(b []byte) int {
	n := 0
	for _, c := range b {
		if c == '\n' {
			n++
		}
	}
	return n
}
