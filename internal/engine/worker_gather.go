package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/blastfleet/blastfleet/internal/engine/output"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// pendingWrite is a write this worker does, filling as pieces arrive.
type pendingWrite struct {
	order  *writeMsg
	pieces []*pieceMsg
}

// writeKey names a write of one unit's output.
type writeKey struct{ unit, write int }

// contribute sends this worker's lines of a write to its writer.
func (w *worker) contribute(ctx context.Context, c *contributeMsg) error {
	t := time.Now()
	segs, err := w.segments(len(c.Lines), func(i int) (int, int, int64) {
		r := c.Lines[i]
		return r.Task, r.Index, r.RelOffset
	})
	if err != nil {
		return err
	}
	p := &pieceMsg{Unit: c.Unit, Write: c.Write, Segments: segs}
	if c.Writer == w.rank {
		w.clock.since("gather", t)
		return w.addPiece(ctx, p)
	}
	err = w.tr.Send(c.Writer, encode(&envelope{Piece: p}))
	w.clock.since("gather", t)
	return err
}

// segments gathers n held lines (task, index, offset) into runs of
// consecutive bytes, and frees the lines.
func (w *worker) segments(n int, line func(int) (task, index int, rel int64)) ([]segment, error) {
	var segs []segment
	for i := range n {
		task, index, rel := line(i)
		lines, ok := w.held[task]
		if !ok || index >= len(lines) {
			return nil, fmt.Errorf("rank %d: asked for line %d of task %d, which it does not hold", w.rank, index, task)
		}
		text := lines[index]
		if k := len(segs); k > 0 && segs[k-1].RelOffset+int64(len(segs[k-1].Data)) == rel {
			segs[k-1].Data = append(segs[k-1].Data, text...)
		} else {
			segs = append(segs, segment{RelOffset: rel, Data: append([]byte(nil), text...)})
		}
		lines[index] = nil
	}
	return segs, nil
}

func (w *worker) pendingWrite(k writeKey) *pendingWrite {
	pw, ok := w.writes[k]
	if !ok {
		pw = &pendingWrite{}
		w.writes[k] = pw
	}
	return pw
}

func (w *worker) addPiece(ctx context.Context, p *pieceMsg) error {
	k := writeKey{p.Unit, p.Write}
	pw := w.pendingWrite(k)
	pw.pieces = append(pw.pieces, p)
	return w.maybeWrite(ctx, k)
}

// maybeWrite writes once the order and every holder's piece are in.
func (w *worker) maybeWrite(ctx context.Context, k writeKey) error {
	pw := w.writes[k]
	if pw.order == nil || len(pw.pieces) < pw.order.Holders {
		return nil
	}
	delete(w.writes, k)
	o := pw.order
	t := time.Now()
	var segs []segment
	for _, p := range pw.pieces {
		segs = append(segs, p.Segments...)
	}
	var part objstore.Part
	var err error
	if o.Own {
		part, err = w.writeOwn(ctx, o, segs)
	} else {
		part, err = w.writeRange(ctx, o.Target, o.Offset, o.Part, o.Size, segs)
	}
	res := &writtenMsg{Unit: k.unit, Write: k.write, Part: o.Part, Size: o.Size, ETag: part.ETag}
	if err != nil {
		res.Error, res.Unavailable = fmt.Sprintf("write %d: %v", k.write, err), objstore.Unavailable(err)
	}
	res.Seconds = time.Since(t).Seconds()
	w.clock.since("write", t)
	return w.tr.Send(0, encode(&envelope{Written: res}))
}

// writeRange assembles size bytes from segments and writes them as one
// range (one part on S3) at offset.
func (w *worker) writeRange(ctx context.Context, t output.Target, offset int64, part int, size int64, segs []segment) (objstore.Part, error) {
	buf := make([]byte, size)
	var filled int64
	for _, s := range segs {
		if s.RelOffset < 0 || s.RelOffset+int64(len(s.Data)) > size {
			return objstore.Part{}, fmt.Errorf("a piece at %d..%d lies outside the %d bytes", s.RelOffset, s.RelOffset+int64(len(s.Data)), size)
		}
		filled += int64(copy(buf[s.RelOffset:], s.Data))
	}
	if filled != size {
		return objstore.Part{}, fmt.Errorf("got %d of %d bytes", filled, size)
	}
	p, err := writeTo(ctx, t, offset, part, buf)
	if err == nil {
		w.sum.BytesWritten += size
		w.sum.BlocksWritten++
		w.metrics.Written(w.cfg.Strategy.Name(), size)
	}
	return p, err
}

// writeOwn writes this worker's runs of lines each at its own offset: the
// non-contiguous individual writes of worker-individual (files only).
func (w *worker) writeOwn(ctx context.Context, o *writeMsg, segs []segment) (objstore.Part, error) {
	if o.Target.UploadID != "" {
		return objstore.Part{}, fmt.Errorf("an S3 object cannot be written at scattered offsets")
	}
	wr, err := output.OpenWriter(ctx, o.Target)
	if err != nil {
		return objstore.Part{}, err
	}
	defer wr.Close()
	var n int64
	for _, s := range segs {
		if _, err := wr.Write(ctx, o.Offset+s.RelOffset, o.Part, s.Data); err != nil {
			return objstore.Part{}, err
		}
		n += int64(len(s.Data))
	}
	if n != o.Size {
		return objstore.Part{}, fmt.Errorf("wrote %d of its %d bytes", n, o.Size)
	}
	w.sum.BytesWritten += n
	w.sum.BlocksWritten++
	w.metrics.Written(w.cfg.Strategy.Name(), n)
	return objstore.Part{Number: o.Part, Size: n}, nil
}
