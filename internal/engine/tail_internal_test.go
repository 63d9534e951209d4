package engine

import (
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/engine/scheduler"
)

// tailMaster is a master at a search's end: nothing unassigned, nothing
// more to come, block 0's task about to go to worker 1, tasks of 10,000
// letters known to take 1 s.
func tailMaster(workers int) *master {
	m := &master{cfg: &Config{Threads: 1}, workers: workers, drained: true, sched: scheduler.New(1),
		blocks: []*blockState{{letters: 10000}}, shares: []float64{1},
		hosts: map[int]string{}, inFlight: map[int]running{}}
	for w := 1; w <= workers; w++ {
		m.hosts[w] = "node-a"
	}
	for _, l := range []float64{5000, 10000, 20000, 40000} {
		m.overhead.add(l, l/10000)
	}
	return m
}

func TestTailThreads(t *testing.T) {
	task := scheduler.Task{Block: 0, Group: 0}
	busyFor := func(left time.Duration) running {
		return running{started: time.Now().Add(left - 2*time.Second), expect: 2}
	}
	for _, c := range []struct {
		name string
		edit func(m *master)
		want int
	}{
		{"the other worker idle", func(m *master) {}, 2},
		{"three idle workers", func(m *master) { m.workers, m.hosts[3], m.hosts[4] = 4, "node-a", "node-a" }, 4},
		{"the other about to finish", func(m *master) { m.inFlight[2] = busyFor(100 * time.Millisecond) }, 2},
		{"the other busy for as long", func(m *master) { m.inFlight[2] = busyFor(time.Second) }, 1},
		{"the other busy, no estimate of its task", func(m *master) { m.inFlight[2] = running{started: time.Now()} }, 1},
		{"the other on another host", func(m *master) { m.hosts[2] = "node-b" }, 1},
		{"host unknown", func(m *master) { m.hosts[1], m.hosts[2] = "", "" }, 1},
		{"tasks still unassigned", func(m *master) { m.sched.Add(0) }, 1},
		{"more work may come", func(m *master) { m.drained = false }, 1},
		{"-mt_mode 1 splits the queries", func(m *master) { m.cfg.Options = []blast.Option{{Name: "mt_mode", Value: "1"}} }, 1},
		{"slots per worker add up", func(m *master) { m.cfg.Threads = 2 }, 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := tailMaster(2)
			c.edit(m)
			if got := m.tailThreads(1, m.expectSeconds(task.Block, task.Group)); got != c.want {
				t.Errorf("tailThreads = %d, want %d", got, c.want)
			}
		})
	}
}

func TestOverheadEstimate(t *testing.T) {
	var o overheadModel
	if got := o.estimate(1000); got != 0 {
		t.Errorf("no task done: estimate %v, want 0", got)
	}
	o.add(1000, 2)
	if got := o.estimate(500); got != 1 {
		t.Errorf("one task: estimate %v, want the mean rate's 1", got)
	}
	for _, l := range []float64{2000, 4000, 8000} {
		o.add(l, 0.5+l/1000)
	}
	if !o.known() {
		t.Fatal("no fit after 4 spread tasks")
	}
}
