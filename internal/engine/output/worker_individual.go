package output

import (
	"maps"
	"slices"
)

// WorkerIndividual has every worker write what it holds of a block itself,
// at its offsets, with no gather and no waiting for others (mpiBLAST 1.x,
// S3aSim's WW-POSIX): many small, non-contiguous writes.
//
// An S3 object cannot be written that way: a part is a contiguous range of
// at least 5 MiB, and a worker's lines are interleaved with others'. There
// the block is cut, at line boundaries, into as many parts as its holders
// (each at least 5 MiB), and each part is uploaded by the holder of most of
// its bytes, a different holder per part where possible, the others sending
// it only their lines inside that part. A block under twice the part
// minimum is one part: the traffic of WorkerMerge.
type WorkerIndividual struct{}

func (WorkerIndividual) Name() string { return "worker-individual" }
func (WorkerIndividual) Flow() Flow   { return Gather }

func (WorkerIndividual) Plan(b *Block, l Layout) []Write {
	if l.MinPart <= 1 {
		ranks := slices.Sorted(maps.Keys(b.Held))
		ws := make([]Write, len(ranks))
		for i, r := range ranks {
			ws[i] = Write{Writer: r, From: 0, To: len(b.Lines), Own: true}
		}
		return ws
	}
	spans := split(b.Lines, len(b.Held), l.MinPart)
	used := map[int]bool{}
	ws := make([]Write, len(spans))
	for i, s := range spans {
		w := mostBytes(held(b.Lines, s), used)
		used[w] = true
		ws[i] = Write{Writer: w, From: s.from, To: s.to}
	}
	return ws
}
