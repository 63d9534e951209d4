package transport

import (
	"fmt"
	"sync"
)

// local is the in-process transport: one unbounded mailbox per rank.
type local struct {
	rank  int
	boxes []*mailbox
}

// NewLocal returns n connected in-process transports, one per rank.
func NewLocal(n int) []Transport {
	boxes := make([]*mailbox, n)
	for i := range boxes {
		boxes[i] = newMailbox()
	}
	ts := make([]Transport, n)
	for i := range ts {
		ts[i] = &local{rank: i, boxes: boxes}
	}
	return ts
}

func (l *local) Rank() int { return l.rank }
func (l *local) Size() int { return len(l.boxes) }

func (l *local) Send(to int, data []byte) error {
	if to < 0 || to >= len(l.boxes) {
		return fmt.Errorf("transport: send to rank %d of %d", to, len(l.boxes))
	}
	return l.boxes[to].put(Message{From: l.rank, Data: data})
}

func (l *local) Recv() <-chan Message { return l.boxes[l.rank].out }

func (l *local) Close() error {
	l.boxes[l.rank].close()
	return nil
}

// mailbox is an unbounded queue feeding a channel, so senders never block.
type mailbox struct {
	mu     sync.Mutex
	cond   *sync.Cond
	queue  []Message
	closed bool
	out    chan Message
	done   chan struct{} // closed by close: undelivered messages are dropped
}

func newMailbox() *mailbox {
	m := &mailbox{out: make(chan Message), done: make(chan struct{})}
	m.cond = sync.NewCond(&m.mu)
	go m.pump()
	return m
}

func (m *mailbox) put(msg Message) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return fmt.Errorf("transport: rank closed")
	}
	m.queue = append(m.queue, msg)
	m.cond.Signal()
	return nil
}

func (m *mailbox) close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.closed {
		m.closed = true
		close(m.done)
		m.cond.Signal()
	}
}

func (m *mailbox) pump() {
	defer close(m.out)
	for {
		m.mu.Lock()
		for len(m.queue) == 0 && !m.closed {
			m.cond.Wait()
		}
		if len(m.queue) == 0 {
			m.mu.Unlock()
			return
		}
		msg := m.queue[0]
		m.queue = m.queue[1:]
		m.mu.Unlock()
		select {
		case m.out <- msg:
		case <-m.done:
			return
		}
	}
}
