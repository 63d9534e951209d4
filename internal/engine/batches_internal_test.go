package engine

import (
	"testing"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
)

// Blocks are runs of whole BLAST+ batches whatever their size, the worker
// count or a unit following, so BLAST searches each batch as one run of
// the whole file does.
func TestBlocksAreWholeBatches(t *testing.T) {
	lengths := make([]int, 500)
	for i := range lengths {
		lengths[i] = 100 + (i*37)%400
	}
	qs := queriesOfLengths(lengths...)
	for _, b := range []int{1, 1000, 5000, 20000, 1 << 30} {
		starts := map[int]bool{0: true}
		for _, e := range blast.BatchEnds(lengths, b) {
			starts[e] = true
		}
		for _, fixed := range []int{0, 1, 3000, 50000} {
			for _, workers := range []int{1, 2, 7} {
				for _, more := range []bool{false, true} {
					for _, s := range takeAll(t, newBlocker(qs, b, fixed, workers, more)) {
						if !starts[s.first] || !starts[s.end] {
							t.Fatalf("B=%d fixed=%d workers=%d more=%v: block [%d,%d) cuts a batch", b, fixed, workers, more, s.first, s.end)
						}
					}
				}
			}
		}
	}
}

// No block crosses where a mixed decomposition's tail starts: the blocks
// before it are searched against other shard groups than those after.
func TestBlocksStopAtTheTail(t *testing.T) {
	lengths := make([]int, 200)
	for i := range lengths {
		lengths[i] = 300
	}
	qs := queriesOfLengths(lengths...)
	ends := blast.BatchEnds(lengths, 3000) // batches of 10 queries
	for _, fixed := range []int{0, 3000, 1 << 30} {
		for _, stop := range []int{ends[0], ends[9], ends[len(ends)-2]} {
			b := newBlocker(qs, 3000, fixed, 2, false)
			b.stop = stop
			crossed := true
			for _, s := range takeAll(t, b) {
				if s.first < stop && s.end > stop {
					t.Fatalf("fixed=%d: block [%d,%d) crosses the tail's start %d", fixed, s.first, s.end, stop)
				}
				if s.end == stop {
					crossed = false
				}
			}
			if crossed {
				t.Fatalf("fixed=%d: no block ends at the tail's start %d", fixed, stop)
			}
		}
	}
}
