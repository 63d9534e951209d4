package engine

import (
	"sync"
	"time"
)

// lane runs object-storage operations of one kind beside the master's
// event loop, one at a time in the order the loop asked for them: the
// loop never waits on storage, and order keeps the ledger's story
// straight (a failure is recorded before the next lease is asked for).
// What an operation learns comes back as a completion that the loop
// itself runs.
type lane struct {
	mu    sync.Mutex
	queue []laneOp
	wake  chan struct{}       // one token: the queue may be non-empty
	done  chan<- func() error // shared by the master's lanes
	quit  chan struct{}
	ended chan struct{}

	// Loop-owned: operations asked for whose completion has not run.
	pending int
	stopped bool
}

// laneOp does its storage work off the loop and returns what the loop
// must do with the outcome (nil: nothing).
type laneOp func() func() error

func newLane(done chan<- func() error) *lane {
	l := &lane{wake: make(chan struct{}, 1), done: done, quit: make(chan struct{}), ended: make(chan struct{})}
	go l.run()
	return l
}

// do queues op. Once the lane is stopped (the loop has ended), op runs at
// once on the caller's goroutine and its completion is dropped: nothing
// is left to act on it.
func (l *lane) do(op laneOp) {
	if l.stopped {
		op()
		return
	}
	l.pending++
	l.mu.Lock()
	l.queue = append(l.queue, op)
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// idle: nothing queued, running, or waiting for the loop.
func (l *lane) idle() bool { return l.pending == 0 }

func (l *lane) run() {
	defer close(l.ended)
	for {
		op, ok := l.pop()
		if !ok {
			return
		}
		c := op()
		// The loop runs this, so pending stays the loop's own.
		completion := func() error {
			l.pending--
			if c == nil {
				return nil
			}
			return c()
		}
		select {
		case l.done <- completion:
		case <-l.quit:
			return
		}
	}
}

func (l *lane) pop() (laneOp, bool) {
	for {
		l.mu.Lock()
		if len(l.queue) > 0 {
			op := l.queue[0]
			l.queue = l.queue[1:]
			l.mu.Unlock()
			return op, true
		}
		l.mu.Unlock()
		select {
		case <-l.wake:
		case <-l.quit:
			return nil, false
		}
	}
}

// stop ends the lane once the loop has: the operation under way finishes
// (within wait), then what is still queued runs here, in order, so no
// commit or failure record is dropped; completions are not run, since the
// loop that would act on them has gone.
func (l *lane) stop(wait time.Duration) {
	if l.stopped {
		return
	}
	l.stopped = true
	close(l.quit)
	select {
	case <-l.ended:
	case <-time.After(wait):
		// An operation hung on the store: its own context ends it.
		return
	}
	l.mu.Lock()
	rest := l.queue
	l.queue = nil
	l.mu.Unlock()
	for _, op := range rest {
		op()
	}
}
