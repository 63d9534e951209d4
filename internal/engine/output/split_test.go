package output

import (
	"math/rand/v2"
	"testing"
)

// TestSplitReachesParts: split makes as many spans as asked and the size
// allows when the bytes beyond the spans' minimum leave room for cuts at
// line boundaries (at least two lines per span); fewer, never short spans,
// otherwise.
func TestSplitReachesParts(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const minPart = 5 * mib
	for range 500 {
		ls := make([]Line, 50+rng.IntN(400))
		var total int64
		for i := range ls {
			ls[i] = Line{Holder: 1, Size: 1 + rng.Int64N(minPart/4)}
			total += ls[i].Size
		}
		n := 1 + rng.IntN(8)
		want := max(1, min(n, int(total/minPart)))
		spans := split(ls, n, minPart)
		roomy := total-int64(want)*minPart >= int64(2*want)*(minPart/4)
		if len(spans) > want || len(spans) < 1 || (roomy && len(spans) != want) {
			t.Fatalf("%d bytes in spans of at least %d, asked for %d: got %d, want %d", total, minPart, n, len(spans), want)
		}
		for i, s := range spans {
			var size int64
			for _, l := range ls[s.from:s.to] {
				size += l.Size
			}
			if len(spans) > 1 && size < minPart {
				t.Fatalf("span %d of %d is %d bytes", i, len(spans), size)
			}
			if share := total / int64(len(spans)); i < len(spans)-1 && size > share+minPart/4 {
				t.Fatalf("span %d is %d bytes, over its share %d by more than a line", i, size, share)
			}
		}
	}
}

func TestSplitEmpty(t *testing.T) {
	if s := split(nil, 3, 1); s != nil {
		t.Errorf("split(nil) = %v", s)
	}
}
