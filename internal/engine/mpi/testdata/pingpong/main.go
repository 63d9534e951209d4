// Command pingpong exercises package mpi under mpirun: every rank sends
// every rank (itself too) a stream of messages (0 bytes to 8 MiB) at the
// same time, checks content and per-sender order, then does the shutdown
// exchange the engine uses and closes. Each rank prints "rank R ok" on success.
package main

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/blastfleet/blastfleet/internal/engine/mpi"
	"github.com/blastfleet/blastfleet/internal/engine/transport"
)

var (
	count   = flag.Int("n", 200, "data messages per ordered pair of ranks")
	maxSize = flag.Int("max", 8<<20, "largest message in bytes")
	idle    = flag.Duration("idle", 0, "wait this long after Init before sending (to measure an idle rank's CPU use)")
)

func main() {
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "pingpong: %v\n", err)
		os.Exit(1)
	}
}

// size is the length of message seq from one rank to another: mostly
// small, some empty, a few large, varied by pair so a reordering or a
// mix-up between senders shows as a wrong length.
func size(from, to, seq int) int {
	switch {
	case seq%50 == 0:
		return 0
	case seq%50 == 7:
		return *maxSize
	case seq%10 == 3:
		return min(*maxSize, 1<<20+from*1000+to)
	default:
		return min(*maxSize, (seq*7919+from*131+to*17)%(64<<10))
	}
}

// payload is a header (seq, from, to) followed by a pattern that depends
// on all three, truncated to size.
func payload(from, to, seq int) []byte {
	b := make([]byte, size(from, to, seq))
	var h [12]byte
	binary.LittleEndian.PutUint32(h[0:], uint32(seq))
	binary.LittleEndian.PutUint32(h[4:], uint32(from))
	binary.LittleEndian.PutUint32(h[8:], uint32(to))
	n := copy(b, h[:])
	for i := n; i < len(b); i++ {
		b[i] = byte(i*13 + seq*7 + from*3 + to)
	}
	return b
}

func run() error {
	if !mpi.Launched() {
		return fmt.Errorf("not started by an MPI launcher")
	}
	t, err := mpi.Init()
	if err != nil {
		return err
	}
	if err := goSignalsWork(); err != nil {
		return err
	}
	rank, n := t.Rank(), t.Size()
	if err := t.Send(n, nil); err == nil {
		return fmt.Errorf("send to rank %d of %d succeeded", n, n)
	}
	// Fresh pages: the oversized buffer is never touched, Send refuses it
	// before copying.
	if err := t.Send((rank+1)%n, make([]byte, mpi.MaxMessage+1)); err == nil {
		return fmt.Errorf("send of %d bytes succeeded", mpi.MaxMessage+1)
	}
	time.Sleep(*idle)
	start := time.Now()

	// One goroutine per peer, all at once: every pair sends in both
	// directions simultaneously, which deadlocks with blocking sends of
	// large messages.
	var wg sync.WaitGroup
	errs := make(chan error, n)
	// Sends to itself are included: MPI matches them like any other.
	for to := range n {
		wg.Go(func() {
			for seq := range *count {
				if err := t.Send(to, payload(rank, to, seq)); err != nil {
					errs <- err
					return
				}
			}
		})
	}

	// Read after a pause so messages pile up in the unbounded queues.
	time.Sleep(200 * time.Millisecond)
	next := make([]int, n)
	var bytesIn int64
	want := n * *count
	// A worker's "done" to rank 0 follows its data (order per sender) but
	// may overtake other workers' data, so rank 0 takes both in one loop.
	dones := 0
	for got := 0; got < want || (rank == 0 && dones < n-1); {
		m, err := recv(t)
		if err != nil {
			return err
		}
		if rank == 0 && m.From > 0 && m.From < n && next[m.From] == *count {
			if string(m.Data) != "done" {
				return fmt.Errorf("rank 0: got %q from %d, want done", m.Data[:min(len(m.Data), 16)], m.From)
			}
			dones++
			continue
		}
		if err := verify(m, rank, next); err != nil {
			return err
		}
		bytesIn += int64(len(m.Data))
		got++
		if rank != 0 && got == want {
			// Shutdown exchange: workers report done to rank 0, which
			// answers bye to everyone once all have; only then does any
			// rank close, so no message is in flight to a closed rank.
			if err := t.Send(0, []byte("done")); err != nil {
				return err
			}
		}
	}
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
	}

	if rank == 0 {
		for to := 1; to < n; to++ {
			if err := t.Send(to, []byte("bye")); err != nil {
				return err
			}
		}
	} else {
		m, err := recv(t)
		if err != nil {
			return err
		}
		if m.From != 0 || string(m.Data) != "bye" {
			return fmt.Errorf("rank %d: got %q from %d, want bye from 0", rank, m.Data[:min(len(m.Data), 16)], m.From)
		}
	}
	if err := t.Close(); err != nil {
		return err
	}
	if err := t.Send(0, nil); err == nil {
		return fmt.Errorf("send after close succeeded")
	}
	select {
	case m, ok := <-t.Recv():
		if ok {
			return fmt.Errorf("message from %d after close", m.From)
		}
	case <-time.After(5 * time.Second):
		return fmt.Errorf("Recv not closed by Close")
	}
	fmt.Printf("rank %d of %d: received %d messages, %d bytes in %v\n", rank, n, want, bytesIn, time.Since(start).Round(time.Millisecond))
	fmt.Printf("rank %d ok\n", rank)
	return nil
}

func recv(t transport.Transport) (transport.Message, error) {
	select {
	case m, ok := <-t.Recv():
		if !ok {
			return m, fmt.Errorf("rank %d: Recv closed early", t.Rank())
		}
		return m, nil
	case <-time.After(30 * time.Second):
		return transport.Message{}, fmt.Errorf("rank %d: no message for 30s", t.Rank())
	}
}

func verify(m transport.Message, rank int, next []int) error {
	from := m.From
	if from < 0 || from >= len(next) {
		return fmt.Errorf("rank %d: message from bad rank %d", rank, from)
	}
	seq := next[from]
	if seq >= *count {
		return fmt.Errorf("rank %d: extra message from %d: %q", rank, from, m.Data[:min(len(m.Data), 16)])
	}
	want := payload(from, rank, seq)
	if len(m.Data) != len(want) {
		return fmt.Errorf("rank %d: message %d from %d has %d bytes, want %d (out of order?)", rank, seq, from, len(m.Data), len(want))
	}
	if !bytes.Equal(m.Data, want) {
		return fmt.Errorf("rank %d: message %d from %d: content differs", rank, seq, from)
	}
	next[from]++
	return nil
}

// goSignalsWork checks that MPI_Init did not take over the signals the Go
// runtime needs: a nil dereference must still be a recoverable panic.
func goSignalsWork() (err error) {
	defer func() {
		if recover() == nil {
			err = fmt.Errorf("nil dereference did not panic after MPI init")
		}
	}()
	var p *int
	_ = *p
	return nil
}
