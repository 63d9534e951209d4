package blast

import (
	"bytes"
	"fmt"
	"time"
)

// OutputLimitError is a run killed for printing more than the caller
// keeps in memory: a block with too many hits for the worker, or a BLAST
// gone wrong. The chunk is retried and split like any failure, so it ends
// on the one query at fault.
type OutputLimitError struct {
	Program string
	Max     int64
}

func (e *OutputLimitError) Error() string {
	return fmt.Sprintf("%s printed more than %d bytes for one task (the worker's --max-task-output): killed; fewer hits per query (-max_target_seqs, -evalue) or more memory and a higher limit", e.Program, e.Max)
}

// TimeoutError is a run killed at its deadline: a BLAST that hangs, or
// runs far longer than blocks of its size have.
type TimeoutError struct {
	Program string
	Timeout time.Duration
	Ran     time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("%s ran past the task's deadline of %v (killed after %v)", e.Program, e.Timeout, e.Ran.Round(time.Millisecond))
}

// cappedBuffer keeps at most max bytes (0: all); past it, it kills the run
// and drops the rest, since refusing the write would leave BLAST blocked
// on a full pipe instead of dead. The buffer is a field, not embedded: an
// embedded bytes.Buffer's ReadFrom would let io.Copy go around Write.
type cappedBuffer struct {
	buf  bytes.Buffer
	max  int64
	kill func()
	over bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if b.over {
		return len(p), nil
	}
	if b.max > 0 && int64(b.buf.Len())+int64(len(p)) > b.max {
		b.over = true
		b.kill()
		return len(p), nil
	}
	return b.buf.Write(p)
}

func (b *cappedBuffer) Bytes() []byte { return b.buf.Bytes() }

// stderrKeptBytes bounds how much of BLAST's stderr a run holds in memory:
// its end, where BLAST says what went wrong. A BLAST (or a query) that
// prints warnings without end must not fill the worker's memory.
const stderrKeptBytes = 64 << 10

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	buf []byte
	max int
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) >= b.max {
		b.buf = append(b.buf[:0], p[len(p)-b.max:]...)
		return n, nil
	}
	b.buf = append(b.buf, p...)
	// Shift only once twice the limit is held, so each byte moves at most
	// once or so.
	if len(b.buf) > 2*b.max {
		b.buf = append(b.buf[:0], b.buf[len(b.buf)-b.max:]...)
	}
	return n, nil
}

// Bytes is the last max bytes written.
func (b *tailBuffer) Bytes() []byte { return b.buf[max(0, len(b.buf)-b.max):] }
