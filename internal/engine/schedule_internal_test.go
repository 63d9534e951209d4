package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/engine/scheduler"
	"github.com/blastfleet/blastfleet/internal/engine/transport"
)

func TestParseSchedule(t *testing.T) {
	for i, name := range Schedules {
		s, err := ParseSchedule(name)
		if err != nil || int(s) != i || s.String() != name {
			t.Errorf("ParseSchedule(%q) = %v, %v", name, s, err)
		}
	}
	if s, err := ParseSchedule(""); err != nil || s != Dynamic {
		t.Errorf(`ParseSchedule("") = %v, %v; want dynamic`, s, err)
	}
	_, err := ParseSchedule("round-robin")
	if err == nil || !strings.Contains(err.Error(), `--schedule "round-robin"`) || !strings.Contains(err.Error(), "length-split") {
		t.Errorf("ParseSchedule(round-robin) error %v does not name the flag and the choices", err)
	}
}

// staticMaster is a master with a unit of the given query lengths split
// by sched among workers, and two shard groups; nothing else runs.
func staticMaster(t *testing.T, sched Schedule, workers int, lengths ...int) (*master, *unit) {
	t.Helper()
	trs := transport.NewLocal(workers + 1)
	t.Cleanup(func() {
		for _, tr := range trs {
			tr.Close()
		}
	})
	m := &master{cfg: &Config{Schedule: sched}, tr: trs[0], workers: workers, groups: [][]int{{0}, {1}},
		queries: queriesOfLengths(lengths...), cached: map[int]map[int]bool{}, source: singleSource{}, drained: true,
		sched: scheduler.New(2), own: map[int]*scheduler.Scheduler{}}
	for w := 1; w <= workers; w++ {
		m.own[w] = scheduler.New(2)
	}
	u := &unit{first: 0, end: len(lengths), blk: newBlocker(m.queries, 1, 0, workers, false)}
	m.units = []*unit{u}
	if err := m.splitUnit(u); err != nil {
		t.Fatal(err)
	}
	return m, u
}

// A static split queues every block for the worker whose span holds it,
// in query order, and a worker that finished its span gets nothing more,
// even while others still have tasks queued.
func TestStaticSplitNoStealing(t *testing.T) {
	lengths := []int{9000, 100, 120, 80, 3000, 2500, 60, 70, 4000, 90, 110, 5000}
	for _, sched := range []Schedule{LengthSplit, WeightSplit} {
		t.Run(sched.String(), func(t *testing.T) {
			m, u := staticMaster(t, sched, 3, lengths...)
			spans, _ := scheduler.LengthSplit(lengths, 3)
			if sched == WeightSplit {
				spans, _ = scheduler.WeightSplit(lengths, 3, scheduler.DefaultWeightFactor)
			}
			next := 0
			for _, id := range u.blocks {
				b := m.blocks[id]
				s := spans[b.owner-1]
				if b.first != next || b.first < s.First || b.end > s.End {
					t.Fatalf("block %d [%d,%d) of worker %d: not next in query order (%d) or outside its span %+v", id, b.first, b.end, b.owner, next, s)
				}
				next = b.end
			}
			if next != len(lengths) || !u.blk.done() {
				t.Fatalf("blocks end at %d of %d queries; blocker done %v", next, len(lengths), u.blk.done())
			}
			// Worker 1 asks until it has nothing left; the others never ask.
			var got int
			for {
				m.idle = []int{1}
				before := len(m.tasks)
				if err := m.dispatch(context.Background()); err != nil {
					t.Fatal(err)
				}
				if len(m.tasks) == before {
					break
				}
				got++
				if tk := m.tasks[len(m.tasks)-1]; m.blocks[tk.block].owner != 1 || tk.worker != 1 {
					t.Fatalf("worker 1 got block %d of worker %d", tk.block, m.blocks[tk.block].owner)
				}
			}
			var want int
			for _, id := range u.blocks {
				if m.blocks[id].owner == 1 {
					want += len(m.groups)
				}
			}
			if got != want || len(m.idle) != 1 {
				t.Fatalf("worker 1 got %d tasks, its span has %d; idle %v", got, want, m.idle)
			}
			if left := m.own[2].Unassigned() + m.own[3].Unassigned(); left == 0 {
				t.Fatal("the other workers have no tasks left: the test shows no stealing")
			}
		})
	}
}
