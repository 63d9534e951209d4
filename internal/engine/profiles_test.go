package engine_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/engine"
	"github.com/blastfleet/blastfleet/internal/plan/shard"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/refsearch"
	"github.com/blastfleet/blastfleet/test/support/synth"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// profileFamilies are protein families with queries of about 22,000
// letters: three BLAST+ batches of rpsblast's 10,000.
func profileFamilies() synth.Options {
	return synth.Options{Seed: 5, Protein: true, Families: 8, Members: 6, MinLen: 80, MaxLen: 300,
		Mutation: 0.1, Queries: 120, QueryFrac: 0.9, Unrelated: 10}
}

// profileFixture is a profile database of the fixture's families (one
// profile per family, from its first member), as makeprofiledb builds
// it, sharded by `db shard --blastdb`: its location and its path.
func profileFixture(t *testing.T, f *fixture) (location, path string) {
	t.Helper()
	testenv.RequireTools(t, "psiblast", "makeprofiledb", "blastdbcmd", blast.Rpsblast.Command(), "rpstblastn")
	ctx := context.Background()
	dir := filepath.Join(f.dir, "profiles")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var err error
	if path, err = refsearch.MakeProfileDB(ctx, f.unsharded, f.fasta, profileFamilies().Members, dir, "fams"); err != nil {
		t.Fatal(err)
	}
	location = filepath.Join(f.dir, "profile-shards")
	st, err := objstore.Open(ctx, location)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := shard.BuildFromBlastDB(ctx, shard.Options{BlastDB: path, Shards: 1, Output: st, WorkDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	return location, path
}

// plain is the program run as a user runs it on the whole query file:
// BLAST+'s own batches (no BATCH_SIZE), the unsharded database.
func plain(t *testing.T, p blast.Program, db, queries, outfmt string, args ...string) []byte {
	t.Helper()
	if v, ok := os.LookupEnv(blast.BatchEnv); ok {
		t.Fatalf("%s=%s is set: the reference must be BLAST+'s own batches", blast.BatchEnv, v)
	}
	out, err := refsearch.Search(context.Background(), string(p), db, queries, outfmt, args...)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(out, []byte("\n")); n < 100 {
		t.Fatalf("plain %s printed %d lines: the data should give many hits", p, n)
	}
	return out
}

// TestProfileProgramsEqualBLAST: rpsblast and rpstblastn through the
// engine (2 workers, the queries three BLAST+ batches) print what plain
// rpsblast and rpstblastn print for the whole query file, byte for byte.
func TestProfileProgramsEqualBLAST(t *testing.T) {
	f := synthFixture(t, profileFamilies())
	loc, path := profileFixture(t, f)
	data, err := os.ReadFile(f.queries)
	if err != nil {
		t.Fatal(err)
	}
	coding, err := synth.BackTranslate(data)
	if err != nil {
		t.Fatal(err)
	}
	codingQ := filepath.Join(f.dir, "coding.fa")
	if err := os.WriteFile(codingQ, coding, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		program blast.Program
		queries string
		outfmt  string
	}{
		{blast.Rpsblast, f.queries, "6 std"},
		{blast.Rpsblast, f.queries, "10 qseqid sseqid evalue bitscore qlen slen"},
		{blast.Rpstblastn, codingQ, "6 std qframe"},
	} {
		t.Run(string(c.program)+"/"+c.outfmt, func(t *testing.T) {
			want := plain(t, c.program, path, c.queries, c.outfmt)
			s := search{program: c.program, outfmt: c.outfmt, workers: 2}
			out := filepath.Join(t.TempDir(), "out")
			sum := s.run(t, loc, c.queries, out)
			if sum.Batches < 2 || sum.ShardGroups != 1 {
				t.Fatalf("%d batches, %d shard groups: want several batches of one group", sum.Batches, sum.ShardGroups)
			}
			got, _ := os.ReadFile(out)
			if d := refsearch.Diff(got, want); d != "" {
				t.Fatalf("engine differs from plain %s: %s", c.program, d)
			}
		})
	}
	t.Run("a sequence database is refused", func(t *testing.T) {
		s := search{program: blast.Rpsblast, outfmt: "6", workers: 2}
		_, err := engine.RunLocal(context.Background(), s.config(t, f.shards(t, 2), f.queries, filepath.Join(t.TempDir(), "out")), 2)
		if err == nil || !strings.Contains(err.Error(), "searches a profile database built by makeprofiledb") {
			t.Fatalf("rpsblast on sequences: %v", err)
		}
	})
	t.Run("blastp on profiles is refused", func(t *testing.T) {
		s := search{program: blast.Blastp, outfmt: "6", workers: 2}
		_, err := engine.RunLocal(context.Background(), s.config(t, loc, f.queries, filepath.Join(t.TempDir(), "out")), 2)
		if err == nil || !strings.Contains(err.Error(), "is a profile database") {
			t.Fatalf("blastp on profiles: %v", err)
		}
	})
}
