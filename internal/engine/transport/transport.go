// Package transport is how the engine's ranks talk: the master and worker
// loops send byte messages through this interface, so the same code runs
// over MPI (package mpi) in a partition and over goroutines in one process.
package transport

// Message is one received message.
type Message struct {
	From int
	Data []byte
}

// Transport connects one rank to the others. Rank 0 is the master.
type Transport interface {
	Rank() int
	Size() int
	// Send queues data for rank to; it never blocks on the receiver (so two
	// ranks sending to each other cannot deadlock). The caller must not
	// modify data afterwards.
	Send(to int, data []byte) error
	// Recv delivers messages from any rank, in order per sender. It is
	// closed by Close.
	Recv() <-chan Message
	// Close releases the transport: its own pending sends are delivered,
	// messages to it that were not read are dropped, and Recv is closed.
	Close() error
}
