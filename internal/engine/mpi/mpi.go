//go:build mpi

package mpi

/*
#include <stdlib.h>
#include <mpi.h>

// The helpers keep the MPI library's handles out of Go: MPI_COMM_WORLD and
// friends are addresses of globals behind casts in Open MPI and integer
// constants in MPICH, so only C names them. Go sees MPI_Request and
// MPI_Message as opaque values of whatever type mpi.h gives them. Which
// mpi.h and library: the cgo_*.go file the build tags select.

enum { bf_tag = 1 };

static int bf_init(int *rank, int *size, int *provided) {
	int rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, provided);
	if (rc != MPI_SUCCESS) return rc;
	if (*provided < MPI_THREAD_FUNNELED) return MPI_ERR_OTHER;
	rc = MPI_Comm_rank(MPI_COMM_WORLD, rank);
	if (rc != MPI_SUCCESS) return rc;
	return MPI_Comm_size(MPI_COMM_WORLD, size);
}

static int bf_isend(void *buf, int count, int to, MPI_Request *req) {
	return MPI_Isend(buf, count, MPI_BYTE, to, bf_tag, MPI_COMM_WORLD, req);
}

// MPICH's MPI_STATUSES_IGNORE is (MPI_Status *)1, which GCC 12 takes for
// a zero-sized array passed where mpi_proto.h declares MPI_Status[]: a
// false -Wstringop-overflow on every build.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif
static int bf_testsome(int n, MPI_Request *reqs, int *outcount, int *indices) {
	return MPI_Testsome(n, reqs, outcount, indices, MPI_STATUSES_IGNORE);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

// bf_improbe matches the next message from any rank, if there is one; MPI's
// matched probe (rather than Iprobe then Recv) ties the receive to exactly
// the probed message.
static int bf_improbe(int *flag, MPI_Message *msg, int *from, int *count) {
	MPI_Status st;
	int rc = MPI_Improbe(MPI_ANY_SOURCE, bf_tag, MPI_COMM_WORLD, flag, msg, &st);
	if (rc != MPI_SUCCESS || !*flag) return rc;
	*from = st.MPI_SOURCE;
	return MPI_Get_count(&st, MPI_BYTE, count);
}

static int bf_mrecv(void *buf, int count, MPI_Message *msg) {
	return MPI_Mrecv(buf, count, MPI_BYTE, msg, MPI_STATUS_IGNORE);
}

static int bf_ibarrier(MPI_Request *req) {
	return MPI_Ibarrier(MPI_COMM_WORLD, req);
}

static int bf_test(MPI_Request *req, int *flag) {
	return MPI_Test(req, flag, MPI_STATUS_IGNORE);
}

static int bf_finalize(void) {
	return MPI_Finalize();
}

static void bf_errstr(int rc, char *buf, int n) {
	int len = 0;
	if (MPI_Error_string(rc, buf, &len) != MPI_SUCCESS || len >= n) len = 0;
	buf[len] = 0;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/blastfleet/blastfleet/internal/engine/transport"
)

// Idle back-off of the comm loop: short enough that a message waiting to be
// matched is picked up quickly, long enough that an idle rank (often more
// ranks than cores) does not burn a core.
const (
	minIdle = 50 * time.Microsecond
	maxIdle = 5 * time.Millisecond // by default; SetIdleLimit changes it
	// While sends are in flight, large (rendezvous) messages only move when
	// this rank calls into MPI, so the loop stays responsive.
	maxIdleSending = 100 * time.Microsecond
	// Receive at most this many messages per round so queued sends still go
	// out while a flood comes in.
	recvBatch = 64
)

var (
	initMu   sync.Mutex
	initDone bool // MPI can be initialized once per process
)

// Init initializes MPI on a dedicated, locked OS thread and returns this
// rank's transport over MPI_COMM_WORLD. It may be called once per process.
// MPI errors abort the job (MPI_ERRORS_ARE_FATAL, the default handler of
// MPI_COMM_WORLD in every MPI), which is what a partition wants: the MPIJob fails and its chunk is retried.
func Init() (transport.Transport, error) {
	initMu.Lock()
	defer initMu.Unlock()
	if initDone {
		return nil, errors.New("mpi: Init called twice (MPI can be initialized once per process)")
	}
	initDone = true
	c := &comm{
		wake: make(chan struct{}, 1),
		in:   newInbox(),
		done: make(chan error, 1),
	}
	c.idleLimit.Store(int64(maxIdle))
	ready := make(chan error, 1)
	go c.loop(ready)
	if err := <-ready; err != nil {
		return nil, err
	}
	return c, nil
}

type comm struct {
	rank, size int

	mu      sync.Mutex
	out     []outMsg // queued by Send, taken by the loop
	closing bool     // Close was called: Send refuses

	wake chan struct{} // pokes the loop out of its idle sleep
	in   *inbox
	done chan error // the loop's MPI_Finalize result

	closeOnce sync.Once
	closeErr  error

	idleLimit atomic.Int64 // the longest idle sleep, a time.Duration
}

// SetIdleLimit sets the longest sleep between polls of an idle rank
// (default 5 ms). Each poll costs this rank's CPU (about 35 ms a second
// at 5 ms, 10 ms at 50 ms, measured here), taken from the BLAST processes
// beside it; a longer limit delays only what arrives while the rank has
// been idle that long, since sending or receiving starts the back-off
// over at 50 us.
func (c *comm) SetIdleLimit(d time.Duration) { c.idleLimit.Store(int64(max(d, minIdle))) }

// outMsg is a queued send; buf is C memory because MPI keeps it until the
// request completes, which cgo forbids for Go memory.
type outMsg struct {
	to  int
	buf unsafe.Pointer
	n   int
}

func (c *comm) Rank() int                      { return c.rank }
func (c *comm) Size() int                      { return c.size }
func (c *comm) Recv() <-chan transport.Message { return c.in.out }

func (c *comm) Send(to int, data []byte) error {
	if to < 0 || to >= c.size {
		return fmt.Errorf("mpi: send to rank %d of %d", to, c.size)
	}
	if len(data) > MaxMessage {
		return fmt.Errorf("mpi: message of %d bytes exceeds the MPI limit of %d", len(data), MaxMessage)
	}
	// malloc(0) may return NULL; keep a real buffer for empty messages.
	buf := C.malloc(C.size_t(max(len(data), 1)))
	copy(unsafe.Slice((*byte)(buf), len(data)), data)
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		C.free(buf)
		return errors.New("mpi: send on closed transport")
	}
	c.out = append(c.out, outMsg{to: to, buf: buf, n: len(data)})
	c.mu.Unlock()
	c.poke()
	return nil
}

// Close sends everything queued, waits for this rank's sends to complete
// (still receiving meanwhile), finalizes MPI and closes Recv. Messages not
// yet taken from Recv are dropped. See the package doc for the shutdown
// protocol callers must follow.
func (c *comm) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closing = true
		c.mu.Unlock()
		c.poke()
		c.closeErr = <-c.done
	})
	return c.closeErr
}

func (c *comm) poke() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// loop is the only goroutine that calls MPI. It never unlocks its thread:
// MPI's notion of the main thread stays with it, and the thread exits with
// the goroutine after MPI_Finalize.
func (c *comm) loop(ready chan<- error) {
	runtime.LockOSThread()
	var rank, size, provided C.int
	if rc := C.bf_init(&rank, &size, &provided); rc != C.MPI_SUCCESS {
		ready <- fmt.Errorf("mpi: MPI_Init_thread (thread level %d): %w", provided, mpiError(rc))
		return
	}
	c.rank, c.size = int(rank), int(size)
	ready <- nil

	var (
		reqs    []C.MPI_Request // in-flight sends, parallel to bufs
		bufs    []unsafe.Pointer
		indices []C.int
		idle    = minIdle
		timer   = time.NewTimer(time.Hour)
	)
	timer.Stop()
	for {
		progress := false

		c.mu.Lock()
		batch := c.out
		c.out = nil
		closing := c.closing
		c.mu.Unlock()
		for _, m := range batch {
			var req C.MPI_Request
			check("MPI_Isend", C.bf_isend(m.buf, C.int(m.n), C.int(m.to), &req))
			reqs = append(reqs, req)
			bufs = append(bufs, m.buf)
			progress = true
		}

		for range recvBatch {
			if !c.recvOne() {
				break
			}
			progress = true
		}

		if len(reqs) > 0 {
			if cap(indices) < len(reqs) {
				indices = make([]C.int, len(reqs))
			}
			var n C.int
			check("MPI_Testsome", C.bf_testsome(C.int(len(reqs)), &reqs[0], &n, &indices[0]))
			if n > 0 && n != C.MPI_UNDEFINED {
				for _, i := range indices[:n] {
					C.free(bufs[i])
					bufs[i] = nil
				}
				k := 0
				for i := range reqs {
					if bufs[i] != nil {
						reqs[k], bufs[k] = reqs[i], bufs[i]
						k++
					}
				}
				clear(bufs[k:])
				reqs, bufs = reqs[:k], bufs[:k]
				progress = true
			}
		}

		// closing was read together with taking the queue, so no Send can
		// have slipped in after it.
		if closing && len(batch) == 0 && len(reqs) == 0 {
			break
		}
		if progress {
			idle = minIdle
			continue
		}
		timer.Reset(idle)
		select {
		case <-c.wake:
			timer.Stop()
			idle = minIdle
		case <-timer.C:
			limit := time.Duration(c.idleLimit.Load())
			if len(reqs) > 0 {
				limit = maxIdleSending
			}
			idle = min(2*idle, limit)
		}
	}

	c.drain()
	var err error
	if rc := C.bf_finalize(); rc != C.MPI_SUCCESS {
		err = fmt.Errorf("mpi: MPI_Finalize: %w", mpiError(rc))
	}
	c.in.close()
	c.done <- err
}

// drain keeps receiving until every rank has closed. A peer that had not
// yet seen the application's stop may still be sending to this rank, and
// a large (rendezvous) send completes only when its receiver matches it:
// were this rank to finalize first, that peer would wait for ever. Every
// rank enters a non-blocking barrier once its own sends are complete, so
// when the barrier completes no send to anyone is still unmatched.
// Messages received meanwhile are queued as usual, and dropped by Close.
func (c *comm) drain() {
	var req C.MPI_Request
	check("MPI_Ibarrier", C.bf_ibarrier(&req))
	idle := minIdle
	for {
		got := false
		for range recvBatch {
			if !c.recvOne() {
				break
			}
			got = true
		}
		var done C.int
		check("MPI_Test", C.bf_test(&req, &done))
		if done != 0 {
			return
		}
		if got {
			idle = minIdle
			continue
		}
		time.Sleep(idle)
		idle = min(2*idle, maxIdle)
	}
}

// recvOne receives one waiting message, if any, into Go memory (the call is
// blocking, so MPI does not keep the pointer) and queues it for Recv.
func (c *comm) recvOne() bool {
	var (
		flag, from, count C.int
		msg               C.MPI_Message
	)
	check("MPI_Improbe", C.bf_improbe(&flag, &msg, &from, &count))
	if flag == 0 {
		return false
	}
	data := make([]byte, int(count))
	var p unsafe.Pointer
	if len(data) > 0 {
		p = unsafe.Pointer(&data[0])
	}
	check("MPI_Mrecv", C.bf_mrecv(p, count, &msg))
	c.in.put(transport.Message{From: int(from), Data: data})
	return true
}

// check panics on an MPI error code. With MPI's default error handler
// errors abort before returning, so this only guards against a changed
// handler.
func check(call string, rc C.int) {
	if rc != C.MPI_SUCCESS {
		panic(fmt.Sprintf("mpi: %s: %v", call, mpiError(rc)))
	}
}

func mpiError(rc C.int) error {
	var buf [C.MPI_MAX_ERROR_STRING + 1]C.char
	C.bf_errstr(rc, &buf[0], C.int(len(buf)))
	return fmt.Errorf("MPI error %d: %s", int(rc), C.GoString(&buf[0]))
}
