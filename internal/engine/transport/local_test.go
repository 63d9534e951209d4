package transport

import (
	"encoding/binary"
	"strings"
	"sync"
	"testing"
	"time"
)

// newLocal returns n connected transports, closed when the test ends.
func newLocal(t *testing.T, n int) []Transport {
	t.Helper()
	ts := NewLocal(n)
	t.Cleanup(func() {
		for _, tr := range ts {
			tr.Close()
		}
	})
	return ts
}

func seqMsg(i int) []byte { return binary.BigEndian.AppendUint32(nil, uint32(i)) }
func seqOf(m Message) int { return int(binary.BigEndian.Uint32(m.Data)) }

// recv reads one message or fails after a timeout.
func recv(t *testing.T, tr Transport) (Message, bool) {
	t.Helper()
	select {
	case m, ok := <-tr.Recv():
		return m, ok
	case <-time.After(5 * time.Second):
		t.Fatalf("rank %d: no message within 5s", tr.Rank())
		return Message{}, false
	}
}

func TestLocalRankAndSize(t *testing.T) {
	ts := newLocal(t, 3)
	for i, tr := range ts {
		if tr.Rank() != i || tr.Size() != 3 {
			t.Errorf("transport %d: Rank %d Size %d", i, tr.Rank(), tr.Size())
		}
	}
}

func TestLocalOrderedPerSender(t *testing.T) {
	const n, perSender = 5, 2000
	ts := newLocal(t, n)
	var wg sync.WaitGroup
	for from := 1; from < n; from++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perSender {
				if err := ts[from].Send(0, seqMsg(i)); err != nil {
					t.Errorf("rank %d send %d: %v", from, i, err)
					return
				}
			}
		}()
	}
	next := make([]int, n)
	for range (n - 1) * perSender {
		m, ok := recv(t, ts[0])
		if !ok {
			t.Fatal("Recv closed early")
		}
		if m.From < 1 || m.From >= n {
			t.Fatalf("message from rank %d", m.From)
		}
		if got := seqOf(m); got != next[m.From] {
			t.Fatalf("from rank %d: got message %d, want %d (out of order)", m.From, got, next[m.From])
		}
		next[m.From]++
	}
	wg.Wait()
	for from := 1; from < n; from++ {
		if next[from] != perSender {
			t.Errorf("rank %d: %d messages received, want %d", from, next[from], perSender)
		}
	}
}

func TestLocalSendNeverBlocks(t *testing.T) {
	const count = 10000
	ts := newLocal(t, 2)
	sent := make(chan error, 1)
	go func() {
		for i := range count {
			if err := ts[1].Send(0, seqMsg(i)); err != nil {
				sent <- err
				return
			}
		}
		sent <- nil
	}()
	select {
	case err := <-sent:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%d sends to a rank that does not read did not finish: Send blocks", count)
	}
	for i := range count {
		m, ok := recv(t, ts[0])
		if !ok || m.From != 1 || seqOf(m) != i {
			t.Fatalf("message %d: got %+v ok=%v", i, m, ok)
		}
	}
}

func TestLocalCrossSendNoDeadlock(t *testing.T) {
	// Two ranks flood each other before either reads.
	const count = 5000
	ts := newLocal(t, 2)
	var wg sync.WaitGroup
	for r := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range count {
				if err := ts[r].Send(1-r, seqMsg(i)); err != nil {
					t.Error(err)
					return
				}
			}
			for i := range count {
				m, ok := recv(t, ts[r])
				if !ok || seqOf(m) != i {
					t.Errorf("rank %d message %d: %+v ok=%v", r, i, m, ok)
					return
				}
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("ranks sending to each other deadlocked")
	}
}

func TestLocalSendToSelf(t *testing.T) {
	ts := newLocal(t, 2)
	if err := ts[1].Send(1, []byte("me")); err != nil {
		t.Fatal(err)
	}
	if m, ok := recv(t, ts[1]); !ok || m.From != 1 || string(m.Data) != "me" {
		t.Errorf("got %+v ok=%v", m, ok)
	}
}

func TestLocalSendOutOfRange(t *testing.T) {
	ts := newLocal(t, 3)
	for _, to := range []int{-1, 3, 100} {
		err := ts[0].Send(to, []byte("x"))
		if err == nil || !strings.Contains(err.Error(), "of 3") {
			t.Errorf("Send to rank %d: %v, want an out-of-range error", to, err)
		}
	}
}

func TestLocalSenderCloseKeepsItsSends(t *testing.T) {
	ts := newLocal(t, 2)
	for i := range 3 {
		if err := ts[1].Send(0, seqMsg(i)); err != nil {
			t.Fatal(err)
		}
	}
	// The sender closing does not lose what it sent.
	if err := ts[1].Close(); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		m, ok := recv(t, ts[0])
		if !ok || m.From != 1 || seqOf(m) != i {
			t.Fatalf("message %d after the sender closed: got %+v ok=%v", i, m, ok)
		}
	}
	if _, ok := recv(t, ts[1]); ok {
		t.Error("closed rank's Recv still open")
	}
}

func TestLocalReceiverCloseDropsUnreadAndClosesRecv(t *testing.T) {
	for round := range 20 {
		ts := NewLocal(2)
		const sent = 50
		for i := range sent {
			if err := ts[1].Send(0, seqMsg(i)); err != nil {
				t.Fatal(err)
			}
		}
		if err := ts[0].Close(); err != nil {
			t.Fatal(err)
		}
		if err := ts[0].Close(); err != nil { // idempotent
			t.Fatalf("second Close: %v", err)
		}
		// Unread messages are dropped; whatever still arrives is an
		// in-order prefix, and Recv is closed.
		got := 0
		for {
			m, ok := recv(t, ts[0])
			if !ok {
				break
			}
			if seqOf(m) != got {
				t.Fatalf("round %d: after Close got message %d, want %d", round, seqOf(m), got)
			}
			got++
		}
		if got > sent {
			t.Fatalf("round %d: %d messages", round, got)
		}
		// A closed rank refuses further messages.
		if err := ts[1].Send(0, []byte("late")); err == nil {
			t.Errorf("round %d: Send to a closed rank succeeded", round)
		}
		ts[1].Close()
	}
}

func TestLocalCloseUnblocksIdleReceiver(t *testing.T) {
	ts := newLocal(t, 1)
	got := make(chan bool, 1)
	go func() {
		_, ok := <-ts[0].Recv()
		got <- ok
	}()
	time.Sleep(10 * time.Millisecond) // let the receiver block
	ts[0].Close()
	select {
	case ok := <-got:
		if ok {
			t.Error("received a message that was never sent")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not wake a receiver waiting on Recv")
	}
}
