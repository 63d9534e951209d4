package engine

import "context"

// syncPoint is a --query-sync barrier (S3aSim's query sync): after a
// block's writes are sent out, every rank waits until all workers have
// reached it, between two of their tasks, and the block is written. The
// master serves no worker meanwhile; the wait is each rank's sync phase.
type syncPoint struct {
	id      int
	unit    int
	pending map[int]bool // the unit's writes not yet reported written
	arrived int
}

func (m *master) syncing() bool { return len(m.syncs) > 0 }

// openSync starts the barrier for the unit's writes [first, end).
func (m *master) openSync(u *unit, first, end int) {
	p := &syncPoint{id: m.nextSync, unit: u.id, pending: map[int]bool{}}
	m.nextSync++
	for s := first; s < end; s++ {
		p.pending[s] = true
	}
	m.syncs = append(m.syncs, p)
	m.broadcast(&envelope{Sync: &syncMsg{ID: p.id}})
}

func (m *master) arrive(ctx context.Context, id int) error {
	for _, p := range m.syncs {
		if p.id == id {
			p.arrived++
		}
	}
	return m.checkSync(ctx)
}

func (m *master) syncWritten(unit, write int) {
	for _, p := range m.syncs {
		if p.unit == unit {
			delete(p.pending, write)
		}
	}
}

// syncAbandoned stops barriers waiting for a failed unit's writes.
func (m *master) syncAbandoned(unit int) {
	for _, p := range m.syncs {
		if p.unit == unit {
			clear(p.pending)
		}
	}
}

// checkSync ends the barriers that are through, oldest first, and then
// hands out the work held back meanwhile.
func (m *master) checkSync(ctx context.Context) error {
	if !m.syncing() {
		return nil
	}
	for m.syncing() && m.syncs[0].arrived == m.workers && len(m.syncs[0].pending) == 0 {
		m.broadcast(&envelope{Sync: &syncMsg{ID: m.syncs[0].id, Release: true}})
		m.syncs = m.syncs[1:]
	}
	return m.dispatch(ctx)
}
