package engine

import (
	"testing"

	"github.com/blastfleet/blastfleet/internal/blast"
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
