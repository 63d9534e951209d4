//go:build mpi

package mpi

import (
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/engine/transport"
)

func TestInboxOrderAndSlowReader(t *testing.T) {
	b := newInbox()
	// put never blocks, however far the reader lags.
	for i := range 10000 {
		b.put(transport.Message{From: i % 3, Data: []byte{byte(i)}})
	}
	for i := range 10000 {
		m := <-b.out
		if m.From != i%3 || m.Data[0] != byte(i) {
			t.Fatalf("message %d: got from %d data %d", i, m.From, m.Data[0])
		}
	}
	b.close()
	if _, ok := <-b.out; ok {
		t.Fatal("out not closed")
	}
}

func TestInboxCloseWithUnreadMessages(t *testing.T) {
	b := newInbox()
	b.put(transport.Message{From: 1})
	b.put(transport.Message{From: 2})
	time.Sleep(10 * time.Millisecond) // let the pump block on out
	b.close()
	b.close() // idempotent
	deadline := time.After(5 * time.Second)
	for {
		select {
		case _, ok := <-b.out:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("out not closed after close with undelivered messages")
		}
	}
}
