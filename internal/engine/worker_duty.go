package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// duty is something a worker does between two tasks, in the order the
// master sent them, waiting there for the other ranks: a collective write
// (worker-collective) or a --query-sync barrier. A task the master assigns
// meanwhile starts only when every duty is done, so the waiting costs
// search time, which is the point of measuring it.
type duty struct {
	coll    *collMsg              // a collective write, or nil for a barrier:
	syncID  int                   // the barrier
	out     map[int][]domainPiece // collective: this worker's lines, by the rank writing them
	entered bool
}

// collState is what came in for one collective: the pieces of the domains
// this worker writes, and how many peers have entered.
type collState struct {
	peers  int
	pieces []domainPiece
}

func (c *collState) add(ps []domainPiece) {
	c.peers++
	c.pieces = append(c.pieces, ps...)
}

// coll returns a collective's state; peers' pieces may come before the
// master's order.
func (w *worker) coll(id int) *collState {
	c, ok := w.colls[id]
	if !ok {
		c = &collState{}
		w.colls[id] = c
	}
	return c
}

func (w *worker) addDuty(ctx context.Context, d *duty) error {
	w.duties = append(w.duties, d)
	return w.advance(ctx)
}

// addColl queues a collective write. Its lines are cut out now: the master
// releases the tasks' lines right after the order, long before the worker
// may enter the collective.
func (w *worker) addColl(ctx context.Context, c *collMsg) error {
	t := time.Now()
	byDomain := map[int][]collLine{}
	for _, l := range c.Lines {
		byDomain[l.Domain] = append(byDomain[l.Domain], l)
	}
	d := &duty{coll: c, out: map[int][]domainPiece{}}
	for dom, lines := range byDomain {
		if dom < 0 || dom >= len(c.Domains) {
			return fmt.Errorf("collective write %d: line in domain %d of %d", c.ID, dom, len(c.Domains))
		}
		segs, err := w.segments(len(lines), func(i int) (int, int, int64) {
			return lines[i].Task, lines[i].Index, lines[i].RelOffset
		})
		if err != nil {
			return fmt.Errorf("collective write %d: %w", c.ID, err)
		}
		writer := c.Domains[dom].Writer
		d.out[writer] = append(d.out[writer], domainPiece{Domain: dom, Segments: segs})
	}
	c.Lines = nil
	w.clock.since("gather", t)
	return w.addDuty(ctx, d)
}

// blocked: between tasks, inside a duty, waiting for other ranks.
func (w *worker) blocked() bool {
	return w.cancel == nil && len(w.duties) > 0 && w.duties[0].entered
}

// advance does the duties it can, in order, when no task runs, and then
// starts the task that waited for them.
func (w *worker) advance(ctx context.Context) error {
	for w.cancel == nil && len(w.duties) > 0 {
		d := w.duties[0]
		if !d.entered {
			d.entered = true
			if err := w.enter(d); err != nil {
				return err
			}
		}
		done, err := w.through(ctx, d)
		if err != nil || !done {
			return err
		}
		w.duties = w.duties[1:]
	}
	if w.cancel == nil && len(w.duties) == 0 && w.deferred != nil {
		a := w.deferred
		w.deferred = nil
		w.start(ctx, a)
	}
	return nil
}

// enter announces this worker at a barrier, or sends every peer its lines
// in the domains the peer writes (an empty piece says "I am here"): the
// all-to-all exchange of a two-phase collective write.
func (w *worker) enter(d *duty) error {
	if d.coll == nil {
		return w.tr.Send(0, encode(&envelope{Arrive: &arriveMsg{ID: d.syncID}}))
	}
	t := time.Now()
	defer func() { w.clock.since("gather", t) }()
	c := d.coll
	st := w.coll(c.ID)
	st.pieces = append(st.pieces, d.out[w.rank]...)
	for p := 1; p < w.tr.Size(); p++ {
		if p == w.rank {
			continue
		}
		if err := w.tr.Send(p, encode(&envelope{CollPiece: &collPieceMsg{ID: c.ID, Pieces: d.out[p]}})); err != nil {
			return fmt.Errorf("collective write %d: sending to rank %d: %w", c.ID, p, err)
		}
	}
	d.out = nil
	return nil
}

// through reports whether the duty is done: the barrier ended, or every
// peer entered the collective and this worker wrote its domains.
func (w *worker) through(ctx context.Context, d *duty) (bool, error) {
	if d.coll == nil {
		if !w.released[d.syncID] {
			return false, nil
		}
		delete(w.released, d.syncID)
		return true, nil
	}
	c := d.coll
	st := w.coll(c.ID)
	if st.peers < w.tr.Size()-2 {
		return false, nil
	}
	delete(w.colls, c.ID)
	for i, dom := range c.Domains {
		if dom.Writer != w.rank {
			continue
		}
		var segs []segment
		for _, p := range st.pieces {
			if p.Domain == i {
				segs = append(segs, p.Segments...)
			}
		}
		t := time.Now()
		part, err := w.writeRange(ctx, c.Target, dom.Offset, dom.Part, dom.Size, segs)
		res := &writtenMsg{Unit: c.Unit, Write: dom.Write, Part: dom.Part, Size: dom.Size, ETag: part.ETag,
			Seconds: time.Since(t).Seconds()}
		if err != nil {
			res.Error, res.Unavailable = fmt.Sprintf("collective write %d, domain %d: %v", c.ID, i, err), objstore.Unavailable(err)
		}
		w.clock.since("write", t)
		if err := w.tr.Send(0, encode(&envelope{Written: res})); err != nil {
			return false, err
		}
	}
	return true, nil
}
