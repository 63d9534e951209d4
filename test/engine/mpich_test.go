package engine_e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/test/support/refsearch"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// TestMPICHEngine builds the engine against MPICH (-tags mpi,mpich, as a
// site with MPICH, Intel MPI or Cray MPICH would: docs/building-the-engine.md)
// and runs a search with 3 ranks under MPICH's Hydra mpiexec: its output
// must be the bytes of the direct BLAST+ reference and of the default
// (Open MPI) engine's run on the same shards, and nothing it started may be
// left running.
func TestMPICHEngine(t *testing.T) {
	requireTools(t, "blastn", "makeblastdb")
	mpich, ompi := testenv.MPICH(t), testenv.OpenMPI(t)
	b := bins(t)
	start := time.Now()
	engine := mpich.Build(t, "./cmd/engine")
	t.Logf("go build -tags %s: %s", mpich.Tags, time.Since(start).Round(time.Millisecond))

	// Each binary says which MPI it has, headers and library both.
	for bin, name := range map[string]string{engine: "MPICH", b.engine: "Open MPI"} {
		v := mustRun(t, 30*time.Second, nil, bin, "--version")
		for _, want := range []string{"MPI compiled against: " + name + " ", "MPI library loaded: " + name + " "} {
			if !strings.Contains(v.stdout, want) {
				t.Fatalf("%s --version lacks %q:\n%s", bin, want, v.stdout)
			}
		}
	}

	f := newFixture(t, nuclFamilies())
	const outfmt = "6 std"
	want := f.reference(t, outfmt)
	db := filepath.Join(t.TempDir(), "db")
	shard(t, b.cli, f.fasta, 3, db, nil)

	search := func(m testenv.MPI, bin string, env ...string) ([]byte, summaryJSON) {
		dir := t.TempDir()
		out, sum := filepath.Join(dir, "out.tsv"), filepath.Join(dir, "summary.json")
		argv := m.Argv(3, bin, "--database", db, "--queries", f.queries, "--program", "blastn",
			"--outfmt", outfmt, "--output", out, "--cache-dir", filepath.Join(dir, "cache"), "--summary-json", sum)
		r := mustRun(t, mpiTimeout, append(m.Env, env...), argv...)
		t.Logf("%s -n 3: %s", m.Name, r.elapsed.Round(time.Millisecond))
		return readFile(t, out), readSummary(t, sum)
	}

	// A marker in the job's environment finds whatever it leaves, however
	// re-parented (Hydra's hydra_pmi_proxy, the ranks, their BLAST).
	marker := fmt.Sprintf("BLASTFLEET_TEST_MPICH=%d-%d", os.Getpid(), time.Now().UnixNano())
	got, sum := search(mpich, engine, marker)
	if left := testenv.Marked(marker); len(left) > 0 {
		t.Errorf("processes left after the MPICH run: %v", left)
	}
	if d := refsearch.Diff(got, want); d != "" {
		t.Fatalf("MPICH engine's output differs from the unsharded search: %s", d)
	}
	// Three ranks of one MPI_COMM_WORLD: the engine under a launcher of
	// another MPI would start three singletons and fail.
	if len(sum.Ranks) != 3 || sum.Queries != 30 || sum.Shards != 3 {
		t.Errorf("summary: %d ranks, %d queries, %d shards; want 3, 30, 3", len(sum.Ranks), sum.Queries, sum.Shards)
	}
	for i, rk := range sum.Ranks {
		if rk.Rank != i {
			t.Errorf("summary ranks[%d] = rank %d", i, rk.Rank)
		}
	}

	ompiOut, _ := search(ompi, b.engine)
	if d := refsearch.Diff(got, ompiOut); d != "" {
		t.Errorf("MPICH and Open MPI engines differ: %s", d)
	}
}
