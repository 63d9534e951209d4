package engine_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/test/support/refsearch"
	"github.com/blastfleet/blastfleet/test/support/synth"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// tiedProteins has many subjects of equal E-value and score: exact copies
// of family members, and members that hold the same domain between random
// flanks (equal score, other lengths; at E-value 0 BLAST orders them by
// ordinal alone). Sharding spreads each family over every shard.
func tiedProteins() synth.Options {
	return synth.Options{Seed: 5, Protein: true, Families: 16, Members: 16, MinLen: 60, MaxLen: 500,
		Mutation: 0.01, Queries: 16, QueryFrac: 1, Unrelated: 200, Duplicates: 6, FlankMax: 40}
}

// TestTieOrder requires BLAST's own order of tied subjects, by their
// ordinal in the unsharded database, from a sharded search: before shards
// kept the database's order, a search of one group broke ties by the
// group's ordinals. With one group the output is blastp's, byte for byte,
// with every --top-hits mode and any number of workers. With a group per
// shard too: ties across groups are put in BLAST's order by a tie-break
// search (docs/concepts.md#the-correctness-contract).
func TestTieOrder(t *testing.T) {
	testenv.RequireTools(t, "blastp", "makeblastdb")
	f := synthFixture(t, tiedProteins())
	db := f.shards(t, 4)
	const outfmt = "6 std slen"
	base := search{program: blast.Blastp, outfmt: outfmt}
	want := base.reference(t, f, false)
	if n := bytes.Count(want, []byte("\n")); n < 300 {
		t.Fatalf("the reference has %d lines; the fixture should give hundreds of tied hits", n)
	}
	for _, c := range []struct {
		name string
		s    search
	}{
		{"one group/workers=1", search{workers: 1}},
		{"one group/workers=3", search{workers: 3}},
		{"one group/top-hits=exact", search{workers: 2, topHits: "exact"}},
		{"one group/top-hits=overfetch", search{workers: 2, topHits: "overfetch"}},
		{"one group/blocks of one query", search{workers: 2, blockLetters: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := c.s
			s.program, s.outfmt = base.program, base.outfmt
			out := filepath.Join(t.TempDir(), "out.tsv")
			s.run(t, db, f.queries, out)
			got, _ := os.ReadFile(out)
			if d := refsearch.Diff(got, want); d != "" {
				t.Fatalf("not blastp's order on the unsharded database: %s", d)
			}
		})
	}
	t.Run("group per shard", func(t *testing.T) {
		s := search{program: blast.Blastp, outfmt: outfmt, workers: 2, groupBytes: 1}
		out := filepath.Join(t.TempDir(), "out.tsv")
		s.run(t, db, f.queries, out)
		got, _ := os.ReadFile(out)
		if d := refsearch.Diff(got, want); d != "" {
			t.Fatalf("not blastp's order on the unsharded database: %s", d)
		}
	})
}
