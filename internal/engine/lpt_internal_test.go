package engine

import (
	"context"
	"slices"
	"testing"

	"github.com/blastfleet/blastfleet/internal/engine/scheduler"
	"github.com/blastfleet/blastfleet/internal/engine/transport"
)

// dynamicMaster is a master with one unit of the given query lengths (B
// of batch letters) under the dynamic schedule, one shard group or, with
// tailFrom, the queries from there on against two finer groups.
func dynamicMaster(t *testing.T, batch, tailFrom, workers int, lengths ...int) (*master, *unit) {
	t.Helper()
	trs := transport.NewLocal(workers + 1)
	t.Cleanup(func() {
		for _, tr := range trs {
			tr.Close()
		}
	})
	m := &master{cfg: &Config{}, tr: trs[0], workers: workers, groups: [][]int{{0, 1}, {0}, {1}}, head: []int{0},
		shares: []float64{1, 0.5, 0.5}, queries: queriesOfLengths(lengths...), cached: map[int]map[int]bool{},
		source: singleSource{}, drained: true, sched: scheduler.New(3), tailFrom: len(lengths)}
	if tailFrom < len(lengths) {
		m.tail, m.tailFrom = []int{1, 2}, tailFrom
	}
	u := &unit{first: 0, end: len(lengths), batch: batch, blk: newBlocker(m.queries, batch, 0, workers, false)}
	m.units = []*unit{u}
	return m, u
}

// handOut lets workers ask for tasks one at a time until none is left and
// returns the letters of each task's block, in the order handed out.
func handOut(t *testing.T, m *master) []int64 {
	t.Helper()
	var got []int64
	for w := 1; ; w = w%m.workers + 1 {
		m.idle = []int{w}
		before := len(m.tasks)
		if err := m.dispatch(context.Background()); err != nil {
			t.Fatal(err)
		}
		if len(m.tasks) == before {
			return got
		}
		got = append(got, m.blocks[m.tasks[before].block].letters)
	}
}

// A few long queries, each its own batch, go out largest first (LPT), and
// the unit still merges its blocks in query order.
func TestFewBatchesLargestFirst(t *testing.T) {
	m, u := dynamicMaster(t, 100, 5, 2, 457, 196, 461, 411, 163)
	got := handOut(t, m)
	if want := []int64{461, 457, 411, 196, 163}; !slices.Equal(got, want) {
		t.Fatalf("blocks handed out as %v, want largest first %v", got, want)
	}
	var firsts []int
	for _, id := range u.blocks {
		firsts = append(firsts, m.blocks[id].first)
	}
	if !slices.Equal(firsts, []int{0, 1, 2, 3, 4}) {
		t.Fatalf("the unit's blocks start at %v, want query order", firsts)
	}
}

// A mixed decomposition's tail (the last batches against finer groups)
// still goes out after the head, each part largest first.
func TestFewBatchesTailLast(t *testing.T) {
	m, _ := dynamicMaster(t, 100, 3, 2, 200, 500, 300, 150, 400)
	got := handOut(t, m)
	if want := []int64{500, 300, 200, 400, 400, 150, 150}; !slices.Equal(got, want) {
		t.Fatalf("tasks handed out as %v, want the head largest first, then the tail's halves largest first %v", got, want)
	}
}

// Many batches go out as guided blocks in query order (they shrink
// towards the end by themselves) until few are left: those go out largest
// first.
func TestManyBatchesQueryOrder(t *testing.T) {
	lengths := make([]int, 40)
	for i := range lengths {
		lengths[i] = 100 + i
	}
	m, u := dynamicMaster(t, 100, len(lengths), 2, lengths...)
	var firsts []int
	for w := 1; ; w = w%2 + 1 {
		m.idle = []int{w}
		before := len(m.tasks)
		if err := m.dispatch(context.Background()); err != nil {
			t.Fatal(err)
		}
		if len(m.tasks) == before {
			break
		}
		firsts = append(firsts, m.blocks[m.tasks[before].block].first)
	}
	// Query order, then (from the batch where few are left) descending.
	i := 1
	for i < len(firsts) && firsts[i] > firsts[i-1] {
		i++
	}
	guided, last := firsts[:i-1], firsts[i-1:]
	if len(guided) < 2 || len(last) < 2 || len(last) > lptBatchesPerWorker*2 {
		t.Fatalf("blocks handed out from queries %v: want guided blocks in query order, then at most %d batches largest first", firsts, lptBatchesPerWorker*2)
	}
	if !slices.IsSortedFunc(last, func(a, b int) int { return b - a }) || last[len(last)-1] <= guided[len(guided)-1] || len(u.blocks) != len(firsts) {
		t.Fatalf("blocks handed out from queries %v: the last batches are not largest first after the guided blocks", firsts)
	}
}
