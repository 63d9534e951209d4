package engine_e2e

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/test/support/refsearch"
	"github.com/blastfleet/blastfleet/test/support/synth"
)

// TestWholeDatabaseProgramsUnderMPI runs the binaries as users do: a
// profile database built by makeprofiledb and sharded by `blastfleet db
// shard --blastdb`, searched by `mpirun -np 3 blastfleet-engine --program
// rpsblast` (two workers), and a database of 2 shards searched by psiblast
// with 3 iterations; each output equals plain BLAST+ on the whole query
// file, byte for byte.
func TestWholeDatabaseProgramsUnderMPI(t *testing.T) {
	requireTools(t, "mpirun", "makeblastdb", "blastdbcmd", "psiblast", "makeprofiledb", blast.Rpsblast.Command())
	b := bins(t)
	ctx := context.Background()
	dir := t.TempDir()
	var db, q bytes.Buffer
	if err := synth.Write(synth.Options{Seed: 9, Protein: true, Families: 8, Members: 6, MinLen: 80, MaxLen: 300,
		Mutation: 0.1, Queries: 80, QueryFrac: 0.9, Unrelated: 10}, &db, &q); err != nil {
		t.Fatal(err)
	}
	dbFasta, queries := filepath.Join(dir, "db.fa"), filepath.Join(dir, "q.fa")
	for path, data := range map[string][]byte{dbFasta: db.Bytes(), queries: q.Bytes()} {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	unsharded, err := refsearch.MakeDB(ctx, dbFasta, "prot", dir)
	if err != nil {
		t.Fatal(err)
	}
	profiles, err := refsearch.MakeProfileDB(ctx, unsharded, dbFasta, 6, dir, "fams")
	if err != nil {
		t.Fatal(err)
	}
	profileShards, seqShards := filepath.Join(dir, "profile-shards"), filepath.Join(dir, "seq-shards")
	mustRun(t, mpiTimeout, nil, b.cli, "db", "shard", "--blastdb", profiles, "--shards", "1", "--output", profileShards, "--work-dir", t.TempDir())
	mustRun(t, mpiTimeout, nil, b.cli, "db", "shard", "--input", dbFasta, "--type", "prot", "--shards", "2", "--output", seqShards, "--work-dir", t.TempDir())
	for _, c := range []struct {
		program  blast.Program
		db, ref  string
		outfmt   string
		args     []string // BLAST+'s
		engineOp []string
	}{
		{blast.Rpsblast, profileShards, profiles, "6 std qlen slen", nil, nil},
		{blast.Psiblast, seqShards, unsharded, "6 std", []string{"-num_iterations", "3"}, []string{"--blast-option=-num_iterations=3"}},
	} {
		t.Run(string(c.program), func(t *testing.T) {
			want, err := refsearch.Search(ctx, string(c.program), c.ref, queries, c.outfmt, c.args...)
			if err != nil {
				t.Fatal(err)
			}
			if n := bytes.Count(want, []byte("\n")); n < 100 {
				t.Fatalf("plain %s printed %d lines: the data should give many hits", c.program, n)
			}
			out := filepath.Join(t.TempDir(), "out.tsv")
			argv := append(mpirun(3), b.engine, "--database", c.db, "--queries", queries, "--program", string(c.program),
				"--outfmt", c.outfmt, "--output", out, "--cache-dir", filepath.Join(t.TempDir(), "cache"))
			mustRun(t, mpiTimeout, mpiEnv, append(argv, c.engineOp...)...)
			if got := readFile(t, out); !bytes.Equal(got, want) {
				t.Errorf("differs from plain %s: %s", c.program, refsearch.Diff(got, want))
			}
		})
	}
}
