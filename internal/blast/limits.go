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
