//go:build mpi

package mpi

import (
	"sync"

	"github.com/blastfleet/blastfleet/internal/engine/transport"
)

// inbox is an unbounded queue feeding a channel, so the comm loop never
// waits for a slow reader (it must keep MPI progressing for its sends).
type inbox struct {
	mu     sync.Mutex
	cond   *sync.Cond
	queue  []transport.Message
	closed bool
	stop   chan struct{} // closed by close: abandon a blocked delivery
	out    chan transport.Message
}

func newInbox() *inbox {
	b := &inbox{out: make(chan transport.Message), stop: make(chan struct{})}
	b.cond = sync.NewCond(&b.mu)
	go b.pump()
	return b
}

func (b *inbox) put(m transport.Message) {
	b.mu.Lock()
	b.queue = append(b.queue, m)
	b.cond.Signal()
	b.mu.Unlock()
}

// close ends delivery: out is closed and undelivered messages are dropped,
// so the pump cannot leak waiting for a reader that has gone.
func (b *inbox) close() {
	b.mu.Lock()
	if !b.closed {
		b.closed = true
		close(b.stop)
		b.cond.Signal()
	}
	b.mu.Unlock()
}

func (b *inbox) pump() {
	defer close(b.out)
	for {
		b.mu.Lock()
		for len(b.queue) == 0 && !b.closed {
			b.cond.Wait()
		}
		if b.closed {
			b.queue = nil
			b.mu.Unlock()
			return
		}
		m := b.queue[0]
		b.queue[0] = transport.Message{} // let the data go once delivered
		b.queue = b.queue[1:]
		b.mu.Unlock()
		select {
		case b.out <- m:
		case <-b.stop:
			return
		}
	}
}
