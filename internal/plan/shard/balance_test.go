package shard

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/blastfleet/blastfleet/internal/storage/manifest"
)

func TestBalanceBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for trial := range 500 {
		n := 1 + rng.IntN(300)
		shards := 1 + rng.IntN(min(n, 12))
		letters := make([]int64, n)
		for i := range letters {
			letters[i] = 1 + rng.Int64N(5000)
			if rng.IntN(20) == 0 {
				letters[i] *= 20 // a few giants
			}
		}
		assign := balance(letters, shards)
		load := make([]int64, shards)
		held := make([]int, shards)
		var total int64
		for ord, s := range assign {
			load[s] += letters[ord]
			held[s]++
			total += letters[ord]
			// The database's order is kept: BLAST breaks ties by it.
			if ord > 0 && s != assign[ord-1] && s != assign[ord-1]+1 {
				t.Fatalf("trial %d: ordinal %d in shard %d after shard %d", trial, ord, s, assign[ord-1])
			}
		}
		if assign[0] != 0 || assign[n-1] != shards-1 {
			t.Fatalf("trial %d: shards run %d..%d, want 0..%d", trial, assign[0], assign[n-1], shards-1)
		}
		if slices.Min(held) == 0 {
			t.Fatalf("trial %d: an empty shard: %v", trial, held)
		}
		share, longest := total/int64(shards), slices.Max(letters)
		for s, l := range load {
			if held[s] > 1 && (l > share+longest || l < share-longest) {
				t.Fatalf("trial %d: shard %d has %d letters, share %d, longest sequence %d", trial, s, l, share, longest)
			}
		}
	}
}

func TestBalanceCuts(t *testing.T) {
	// Cuts fall at the boundary nearest each share: 40 letters in two
	// shards cut after the sequence that ends nearest 20.
	if got, want := balance([]int64{5, 10, 5, 5, 10, 5}, 2), []int{0, 0, 0, 1, 1, 1}; !slices.Equal(got, want) {
		t.Errorf("balance = %v, want %v", got, want)
	}
	// As many shards as sequences: one each.
	if got, want := balance([]int64{100, 1, 1}, 3), []int{0, 1, 2}; !slices.Equal(got, want) {
		t.Errorf("balance = %v, want %v", got, want)
	}
	if got, want := balance([]int64{1, 1, 100}, 3), []int{0, 1, 2}; !slices.Equal(got, want) {
		t.Errorf("balance = %v, want %v", got, want)
	}
}

func TestNamesFor(t *testing.T) {
	n := namesFor(7, 10, "nt", manifest.Nucleotide)
	if n.name != "shard-007" || n.db != "shard-007.db" || n.alias != "shard-007.nal" || n.ids != "shard-007.ids" || n.title != "nt shard 7" {
		t.Errorf("namesFor = %+v", n)
	}
	if n := namesFor(7, 1000, "p", manifest.Protein); n.name != "shard-0007" || n.alias != "shard-0007.pal" {
		t.Errorf("namesFor 1000 shards = %+v", n)
	}
	if n := namesFor(999, 1000, "p", manifest.Protein); n.name != "shard-0999" {
		t.Errorf("namesFor = %+v", n)
	}
}

func TestDefaultName(t *testing.T) {
	for in, want := range map[string]string{
		"/data/nt.fasta.gz": "nt",
		"swissprot.fa":      "swissprot",
		"x.FA.GZ":           "x",
		"db.txt":            "db.txt",
		"reads.gz":          "reads",
		".fa":               ".fa",
	} {
		if got := DefaultName(in); got != want {
			t.Errorf("DefaultName(%q) = %q, want %q", in, got, want)
		}
	}
}
