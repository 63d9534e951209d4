package engine

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestDecompose(t *testing.T) {
	sizes := []int64{100, 100, 100, 100}
	ids := []int{0, 1, 2, 3}
	one := [][]int{{0, 1, 2, 3}}
	batches := func(letters ...int64) []int64 { return letters }
	same := func(n int) []int64 {
		b := make([]int64, n)
		for i := range b {
			b[i] = 1000
		}
		return b
	}
	for _, c := range []struct {
		name                     string
		batches                  []int64
		share                    float64
		segmentable, fixed, stat bool
		head, tail, tailFrom     int
		why                      string
	}{
		{"many batches: query segmentation", same(40), 0.07, true, false, false, 1, 0, 40, "query segmentation: 40 batches"},
		{"5 batches: the last one in halves", same(5), 0.07, true, false, false, 1, 2, 4, "then database segmentation for the last 1"},
		{"two unequal batches (long queries): every batch in halves", batches(1000, 600), 0.02, true, false, false, 2, 0, 2, "database segmentation: 2 batches x 2"},
		{"one batch: a group per worker", same(1), 0.07, true, false, false, 2, 0, 1, "database segmentation: 1 batches x 2"},
		{"megablast's 2, 2 and 0.8 M letters: only the last batch in halves", batches(2000, 2000, 800), 0.13, true, false, false, 1, 2, 2,
			"query segmentation, then database segmentation for the last 1: 2 batches x 1 shard groups, then 1 x 2"},
		{"5 batches, costly set-up: the last one in halves", same(5), 0.3, true, false, false, 1, 2, 4, "then database segmentation for the last 1"},
		{"static schedules: no tail, every batch in halves", batches(2000, 2000, 800), 0.13, true, false, true, 2, 0, 3, "database segmentation: 3 batches x 2"},
		{"not segmentable", same(1), 0.07, false, false, false, 1, 0, 1, "segmenting it could change the output"},
		{"--group-bytes", same(1), 0.07, true, true, false, 1, 0, 1, "groups set by --group-bytes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := decompose(workload{sizes: sizes, ids: ids, base: one, batches: c.batches, workers: 2, share: c.share,
				segmentable: c.segmentable, fixed: c.fixed, mixed: !c.stat})
			if len(p.head) != c.head || len(p.tail) != c.tail || p.tailFrom != c.tailFrom {
				t.Fatalf("head %d groups, tail %d from batch %d (%s), want %d, %d from %d", len(p.head), len(p.tail), p.tailFrom, p.why, c.head, c.tail, c.tailFrom)
			}
			for _, gs := range [][]int{p.head, p.tail} {
				seen := 0
				for _, g := range gs {
					for _, s := range p.groups[g] {
						if s != seen {
							t.Fatalf("groups %v are not the shards in order", p.groups)
						}
						seen++
					}
				}
				if len(gs) > 0 && seen != len(sizes) {
					t.Fatalf("groups %v miss shards", p.groups)
				}
			}
			for b := range c.batches {
				want := p.head
				if b >= c.tailFrom {
					want = p.tail
				}
				if got := p.groupsOf(b); !slices.Equal(got, want) {
					t.Errorf("batch %d: groups %v, want %v", b, got, want)
				}
			}
			if !strings.Contains(p.why, c.why) {
				t.Errorf("reason %q, want it to say %q", p.why, c.why)
			}
		})
	}
}

// The prediction follows the scheduler's order: batches first to last,
// each task to the first worker free.
func TestPredict(t *testing.T) {
	sizes := []int64{1, 1}
	whole, halves := [][]int{{0, 1}}, [][]int{{0}, {1}}
	for _, c := range []struct {
		name    string
		batches []int64
		from    int
		want    float64
	}{
		{"two equal batches, whole", []int64{10, 10}, 2, 1},
		{"three equal batches, whole: one worker does two", []int64{10, 10, 10}, 3, 4.0 / 3},
		{"three equal batches, the last in halves", []int64{10, 10, 10}, 2, 1},
		{"one batch in halves", []int64{10}, 0, 1},
	} {
		if got := predict(whole, halves, sizes, c.batches, seq(0, len(c.batches)), c.from, 2, 0); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: %.4f, want %.4f", c.name, got, c.want)
		}
	}
}

func TestBalanced(t *testing.T) {
	for _, c := range []struct {
		sizes []int64
		g     int
		want  string
	}{
		{[]int64{1, 1, 1, 1}, 2, "[[0 1] [2 3]]"},
		{[]int64{5, 1, 1, 1}, 2, "[[0] [1 2 3]]"},
		{[]int64{1, 1, 1}, 3, "[[0] [1] [2]]"},
		{[]int64{1, 1, 1, 9}, 3, "[[0 1] [2] [3]]"},
	} {
		if got := fmt.Sprint(balanced(c.sizes, c.g)); got != c.want {
			t.Errorf("balanced(%v, %d) = %s, want %s", c.sizes, c.g, got, c.want)
		}
	}
}

// Shards of nearly equal bytes split evenly, whichever side of the half
// the first two fall (four shards of a real database: the first two were
// 5 bytes short of half, and the groups came out 3 and 1).
func TestBalancedNearlyEqual(t *testing.T) {
	for _, sizes := range [][]int64{{2811000, 2815000, 2817000, 2814000}, {2817000, 2815000, 2811000, 2814000}} {
		if got := fmt.Sprint(balanced(sizes, 2)); got != "[[0 1] [2 3]]" {
			t.Errorf("balanced(%v, 2) = %s, want [[0 1] [2 3]]", sizes, got)
		}
	}
}

// With few batches the master hands them out largest first, and the
// prediction follows it: five long queries of the c-long bench (letters
// in thousands) on 2 workers.
func TestPredictLargestFirst(t *testing.T) {
	whole := [][]int{{0, 1}}
	batches := []int64{457, 196, 461, 411, 163}
	if got := batchOrder(batches, 5, 2, true); !slices.Equal(got, []int{2, 0, 3, 1, 4}) {
		t.Fatalf("order %v, want largest first", got)
	}
	if got := batchOrder(batches, 3, 2, true); !slices.Equal(got, []int{2, 0, 1, 3, 4}) {
		t.Fatalf("order with a tail from batch 3: %v, want the head's largest first, then the tail's", got)
	}
	if got := batchOrder(batches, 5, 1, true); !slices.Equal(got, seq(0, 5)) {
		t.Fatalf("5 batches on 1 worker are not few (more than %d per worker): order %v", lptBatchesPerWorker, got)
	}
	if got := batchOrder(batches, 5, 2, false); !slices.Equal(got, seq(0, 5)) {
		t.Fatalf("order without lpt %v, want query order", got)
	}
	fifo := predict(whole, nil, []int64{1, 1}, batches, seq(0, 5), 5, 2, 0)
	lpt := predict(whole, nil, []int64{1, 1}, batches, batchOrder(batches, 5, 2, true), 5, 2, 0)
	// In order: 457+411 against 196+461+163; largest first: 461+196+163
	// against 457+411. By letters both end at 868, 1.03x the 844 of a
	// perfect split; by their measured times largest first ended 1 s
	// sooner (the 457 kb query was the slowest per letter).
	if math.Abs(fifo-868.0/844) > 1e-9 || math.Abs(lpt-868.0/844) > 1e-9 {
		t.Fatalf("predicted %.4f in order and %.4f largest first, want %.4f for both", fifo, lpt, 868.0/844)
	}
}
