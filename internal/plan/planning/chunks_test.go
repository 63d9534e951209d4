package planning

import (
	"testing"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
)

func TestChunkBatches(t *testing.T) {
	lengths := make([]int, 100)
	for i := range lengths {
		lengths[i] = 300
	}
	ends := blast.BatchEnds(lengths, 1000) // batches of 4 queries
	starts := map[int]bool{0: true}
	for _, e := range ends {
		starts[e] = true
	}
	for _, c := range []struct {
		name              string
		letters, perChunk int
	}{{"letters", 2500, 0}, {"queries", 0, 7}, {"one batch each", 1, 0}} {
		t.Run(c.name, func(t *testing.T) {
			chunks := chunkBatches(lengths, ends, c.letters, c.perChunk)
			next := 0
			for _, ch := range chunks {
				if ch.First != next || !starts[ch.First] || !starts[ch.End] {
					t.Fatalf("chunk [%d,%d) is not a run of whole batches after %d", ch.First, ch.End, next)
				}
				next = ch.End
			}
			if next != len(lengths) {
				t.Fatalf("chunks end at %d, want %d", next, len(lengths))
			}
		})
	}
	// Alone: every query a batch, as ledger.ChunkByLetters cuts.
	alone := chunkBatches(lengths, blast.BatchEnds(lengths, blast.Alone), 1000, 0)
	want := ledger.ChunkByLetters(lengths, 1000)
	if len(alone) != len(want) || alone[0] != want[0] {
		t.Fatalf("alone: %v, want %v", alone[:2], want[:2])
	}
}
