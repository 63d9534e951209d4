// Package mpi is the engine's transport over OpenMPI: a thin cgo binding
// (build tag "mpi", needs libopenmpi-dev) that implements
// transport.Transport with non-blocking point-to-point messages on
// MPI_COMM_WORLD.
//
// All MPI calls, including MPI_Init_thread and MPI_Finalize, run on one
// goroutine locked to its OS thread (the comm loop), so MPI only needs
// MPI_THREAD_FUNNELED. Send copies the bytes into C memory and queues them;
// the loop posts MPI_Isend, polls for incoming messages with MPI_Improbe and
// receives them with MPI_Mrecv, and hands them to Recv through an unbounded
// queue, so neither a slow reader nor a peer that sends at the same time can
// stall it.
//
// Shutdown protocol: Close waits for this rank's own sends to complete (it
// keeps receiving meanwhile), then enters a non-blocking barrier and keeps
// receiving until every rank has entered it, and only then calls
// MPI_Finalize. A peer that was still sending to this rank when it closed
// (it had not yet seen the application's stop) therefore gets its message
// matched instead of waiting for ever; such late messages are dropped. The
// caller still decides when to close: after an application-level shutdown
// exchange (the engine's master tells every worker to stop and waits for
// each reply), so that no message that matters arrives after Close.
//
// Without the "mpi" tag the package still builds: Init returns an error and
// Launched still works, so the operator and CLI build without MPI headers.
package mpi
