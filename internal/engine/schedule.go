package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/blastfleet/blastfleet/internal/engine/scheduler"
)

// Schedule is how query blocks reach workers (--schedule).
type Schedule int

const (
	// Dynamic is Algorithm 1: any free worker takes the next task.
	Dynamic Schedule = iota
	// LengthSplit cuts each unit's queries once, up front, into one
	// contiguous span per worker of about equal letters (Rangwala et al.).
	LengthSplit
	// WeightSplit is LengthSplit with every query weighing its letters
	// plus scheduler.DefaultWeightFactor (ScalaBLAST).
	WeightSplit
)

// Schedules lists the schedules' names, the default first.
var Schedules = []string{"dynamic", "length-split", "weight-split"}

// ParseSchedule parses --schedule.
func ParseSchedule(s string) (Schedule, error) {
	for i, name := range Schedules {
		if s == name || (s == "" && i == 0) {
			return Schedule(i), nil
		}
	}
	return Dynamic, fmt.Errorf("--schedule %q: unknown (want %s)", s, strings.Join(Schedules, ", "))
}

func (s Schedule) String() string {
	if s >= 0 && int(s) < len(Schedules) {
		return Schedules[s]
	}
	return fmt.Sprintf("Schedule(%d)", int(s))
}

// static: queries are split among workers up front, with no stealing.
func (s Schedule) static() bool { return s != Dynamic }

// splitUnit makes a static split of a new unit: its queries in one span per
// worker (the Blue Gene/P paper's §V.C baselines), each span cut into
// blocks queued for that worker alone. The blocks are added in query
// order, as the merge needs, and the unit has no queries left to cut.
// Spans are runs of whole BLAST+ batches: the split weighs batches.
func (m *master) splitUnit(u *unit) error {
	qs := m.queries[u.first:u.end]
	ends := u.blk.ends
	lengths := make([]int, len(ends))
	for i, e := range ends {
		first := 0
		if i > 0 {
			first = ends[i-1]
		}
		lengths[i] = int(sumLetters(qs[first:e]))
	}
	var spans []scheduler.Span
	var err error
	if m.cfg.Schedule == WeightSplit {
		spans, err = scheduler.WeightSplit(lengths, m.workers, scheduler.DefaultWeightFactor)
	} else {
		spans, err = scheduler.LengthSplit(lengths, m.workers)
	}
	if err != nil {
		return fmt.Errorf("--schedule %s: %w", m.cfg.Schedule, err)
	}
	at := func(batch int) int { // a batch index as a query index
		if batch == 0 {
			return 0
		}
		return ends[batch-1]
	}
	for i, s := range spans {
		s = scheduler.Span{First: at(s.First), End: at(s.End)}
		w := i + 1
		// Blocks within a span are guided as for one worker: the span's
		// worker alone searches them, so their size only spreads BLAST's
		// start-up cost and lets its output go out before the span ends.
		blk := newBlocker(qs[s.First:s.End], u.batch, m.cfg.BlockLetters, 1, false)
		for !blk.done() {
			first, end := blk.take()
			m.newBlock(u, u.first+s.First+first, u.first+s.First+end, w)
		}
	}
	u.blk.next, u.blk.left = len(u.blk.queries), 0
	return nil
}

// dispatchStatic hands every idle worker the next task of its own spans.
// A worker with nothing left waits, unless a new unit can be taken: then
// that unit is split among all workers.
func (m *master) dispatchStatic(ctx context.Context) error {
	for len(m.idle) > 0 && !m.syncing() {
		var waiting []int
		for _, w := range m.idle {
			t, ok := m.own[w].Next(func(g int) bool { return m.cached[w][g] })
			if !ok {
				waiting = append(waiting, w)
				continue
			}
			if err := m.assign(w, t); err != nil {
				return err
			}
		}
		m.idle = waiting
		if len(m.idle) == 0 {
			return nil
		}
		more, err := m.addBlock(ctx)
		if err != nil || !more {
			return err
		}
	}
	return nil
}

// dropBlock removes a block's unassigned tasks from whichever queue holds
// them.
func (m *master) dropBlock(id int) {
	m.sched.Drop(id)
	m.blocks[id].assign = nil // no task of it will be assigned
	if o := m.blocks[id].owner; o > 0 {
		m.own[o].Drop(id)
	}
}
