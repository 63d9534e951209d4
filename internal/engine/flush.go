package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/blastfleet/blastfleet/internal/engine/output"
)

// flush hands a unit's pending lines to the strategy as one block and sends
// out its writes (under master-writing, does them).
func (m *master) flush(ctx context.Context, u *unit) error {
	if u.pendSize == 0 {
		return nil
	}
	lines := make([]output.Line, len(u.pending))
	for i, l := range u.pending {
		lines[i] = output.Line{Holder: l.worker, Size: int64(l.size)}
	}
	blk := output.NewBlock(u.written, u.offset, lines)
	writes := m.cfg.Strategy.Plan(blk, output.Layout{Workers: m.workers, MinPart: output.MinBlock(u.target.Location)})
	// rel[i] is line i's offset in the block.
	rel := make([]int64, len(lines)+1)
	for i, l := range lines {
		rel[i+1] = rel[i] + l.Size
	}
	first := u.writes
	var err error
	switch m.cfg.Strategy.Flow() {
	case output.Collective:
		err = m.collective(u, blk, writes, rel)
	case output.ToMaster:
		err = m.writeHere(ctx, u, blk, writes, rel)
		first = u.writes // written already: a barrier waits for no write
	default:
		err = m.gather(u, blk, writes, rel)
	}
	if err != nil || u.failed {
		return err
	}
	if m.cfg.QuerySync {
		m.openSync(u, first, u.writes)
	}
	u.written++
	u.offset += blk.Size
	m.sum.BytesWritten += blk.Size
	u.pending, u.pendSize = nil, 0
	return m.release(u)
}

// gather orders each write's writer to write once its holders' pieces are
// in, and each holder to send its lines (WorkerMerge, WorkerIndividual).
func (m *master) gather(u *unit, blk *output.Block, writes []output.Write, rel []int64) error {
	for _, wr := range writes {
		seq := u.writes
		u.writes++
		refs := map[int][]lineRef{}
		var size int64
		for i := wr.From; i < wr.To; i++ {
			l := u.pending[i]
			if wr.Own && l.worker != wr.Writer {
				continue
			}
			refs[l.worker] = append(refs[l.worker], lineRef{Task: l.task, Index: l.index, RelOffset: rel[i] - rel[wr.From]})
			size += int64(l.size)
		}
		if err := m.send(wr.Writer, &envelope{Write: &writeMsg{Unit: u.id, Target: u.target, Write: seq,
			Offset: blk.Offset + rel[wr.From], Part: seq + 1, Size: size, Holders: len(refs), Own: wr.Own}}); err != nil {
			return err
		}
		for w, lines := range refs {
			if err := m.send(w, &envelope{Contribute: &contributeMsg{Unit: u.id, Write: seq, Writer: wr.Writer, Lines: lines}}); err != nil {
				return err
			}
		}
		u.inFlight++
	}
	return nil
}

// collective sends every worker the block's domains and its lines in them;
// the workers write the block together (WorkerCollective).
func (m *master) collective(u *unit, blk *output.Block, writes []output.Write, rel []int64) error {
	domains := make([]domain, len(writes))
	mine := map[int][]collLine{}
	for d, wr := range writes {
		domains[d] = domain{Writer: wr.Writer, Write: u.writes, Offset: blk.Offset + rel[wr.From],
			Part: u.writes + 1, Size: rel[wr.To] - rel[wr.From]}
		u.writes++
		u.inFlight++
		for i := wr.From; i < wr.To; i++ {
			l := u.pending[i]
			mine[l.worker] = append(mine[l.worker], collLine{Task: l.task, Index: l.index, Domain: d, RelOffset: rel[i] - rel[wr.From]})
		}
	}
	id := m.nextColl
	m.nextColl++
	for w := 1; w <= m.workers; w++ {
		if err := m.send(w, &envelope{Coll: &collMsg{Unit: u.id, ID: id, Target: u.target,
			Domains: domains, Lines: mine[w]}}); err != nil {
			return err
		}
	}
	return nil
}

// writeHere writes a block from the lines the workers sent with their
// results (MasterWriting). Like S3aSim's master it blocks: no worker is
// served while it writes.
func (m *master) writeHere(ctx context.Context, u *unit, blk *output.Block, writes []output.Write, rel []int64) error {
	t := time.Now()
	defer func() { m.clock.since("write", t) }()
	for _, wr := range writes {
		seq := u.writes
		u.writes++
		buf := make([]byte, 0, rel[wr.To]-rel[wr.From])
		for _, l := range u.pending[wr.From:wr.To] {
			lines := m.held[l.task]
			if l.index >= len(lines) {
				return fmt.Errorf("master-writing: line %d of task %d is not held by the master", l.index, l.task)
			}
			buf = append(buf, lines[l.index]...)
			lines[l.index] = nil
		}
		p, err := writeTo(ctx, u.target, blk.Offset+rel[wr.From], seq+1, buf)
		if err != nil {
			return m.fail(ctx, u, fmt.Errorf("rank 0 writing output block %d: %w", blk.Seq, err), nil)
		}
		if output.IsObject(u.target.Location) {
			u.parts = append(u.parts, p)
		}
		m.self.BytesWritten += int64(len(buf))
		m.metrics.Written(m.cfg.Strategy.Name(), int64(len(buf)))
		m.self.BlocksWritten++
	}
	return nil
}
