package planning

import (
	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/plan/search"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
)

// chunkBatches cuts queries into chunks of whole BLAST+ batches (ends, as
// blast.BatchEnds gives them): of about letters letters each, or when
// letters is 0 of about perChunk queries each. A chunk is never smaller
// than one batch, so a batch larger than the chunk size is a chunk alone.
func chunkBatches(lengths, ends []int, letters, perChunk int) []ledger.Chunk {
	var out []ledger.Chunk
	cur := ledger.Chunk{}
	first := 0
	for _, e := range ends {
		var n int64
		for _, l := range lengths[first:e] {
			n += int64(l)
		}
		full := cur.End > cur.First &&
			(letters > 0 && cur.Letters+n > int64(letters) ||
				letters <= 0 && cur.End-cur.First+(e-first) > max(perChunk, 1))
		if full {
			out = append(out, cur)
			cur = ledger.Chunk{First: first, End: first}
		}
		cur.End = e
		cur.Letters += n
		first = e
	}
	if cur.End > cur.First {
		out = append(out, cur)
	}
	return out
}

// Chunks cuts queries of the given lengths into a plan's chunks for search
// s (about letters letters, or perChunk queries, a chunk) and returns them
// with the plan's batch starts.
func Chunks(lengths []int, s search.Spec, letters, perChunk int) ([]ledger.Chunk, []int) {
	b := s.BatchLetters()
	ends := blast.BatchEnds(lengths, b)
	if b == blast.Alone {
		// Every query starts a batch: the plan says so by recording none.
		return chunkBatches(lengths, ends, letters, perChunk), nil
	}
	return chunkBatches(lengths, ends, letters, perChunk), ledger.BatchStartsOf(ends)
}
