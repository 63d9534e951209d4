package shard

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/blastfleet/blastfleet/internal/manifest"
)

func TestBalanceBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for trial := range 200 {
		n, shards := 1+rng.IntN(300), 1+rng.IntN(12)
		letters := make([]int64, n)
		for i := range letters {
			letters[i] = 1 + rng.Int64N(5000)
		}
		assign := balance(letters, shards)
		load := make([]int64, shards)
		for ord, s := range assign {
			load[s] += letters[ord]
		}
		if spread := slices.Max(load) - slices.Min(load); spread > slices.Max(letters) {
			t.Fatalf("trial %d: spread %d exceeds longest sequence %d", trial, spread, slices.Max(letters))
		}
	}
}

func TestBalanceTies(t *testing.T) {
	// Longest first; equal lengths by ordinal; equal loads to the smallest
	// shard id.
	got := balance([]int64{5, 10, 5, 5, 10}, 2)
	// 10(ord1)->0, 10(ord4)->1, 5(ord0)->0, 5(ord2)->1, 5(ord3)->0 (15 vs 15: shard 0)
	want := []int{0, 0, 1, 0, 1}
	if !slices.Equal(got, want) {
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
