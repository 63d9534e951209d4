package ledger

import "testing"

func TestHalvesOnBatchStarts(t *testing.T) {
	p := &Plan{BatchStarts: []int{34, 68, 102, 136}}
	for _, c := range []struct {
		r    Range
		want int
	}{
		{Range{0, 170}, 68},  // the start nearest 85 (68 and 102 tie: the first)
		{Range{34, 136}, 68}, // 85: 68 and 102 tie again
		{Range{68, 136}, 102},
		{Range{0, 40}, 34},
		{Range{68, 102}, 85}, // one batch: its middle, searched alone
		{Range{70, 75}, 72},
	} {
		h := p.halves(c.r)
		if h[0] != (Range{c.r.First, c.want}) || h[1] != (Range{c.want, c.r.End}) {
			t.Errorf("halves(%v) = %v, want split at %d", c.r, h, c.want)
		}
	}
	// No batches recorded (each query alone, or a plan made before): the
	// middle by count, as always.
	if h := (*Plan)(nil).halves(Range{0, 9}); h[0] != (Range{0, 4}) {
		t.Errorf("nil plan halves = %v", h)
	}
}
