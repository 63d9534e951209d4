// Package mpi is the engine's transport over MPI: a thin cgo binding
// (build tag "mpi") that implements transport.Transport with non-blocking
// point-to-point messages on MPI_COMM_WORLD.
//
// Which MPI is a build-time choice, made by one tiny file per MPI that holds
// only its #cgo line: -tags mpi builds against Open MPI (pkg-config ompi,
// Debian's libopenmpi-dev; cgo_openmpi.go), -tags mpi,mpich against MPICH
// (pkg-config mpich, libmpich-dev; cgo_mpich.go), and -tags mpi,mpicc adds
// no flags at all, for a site whose compiler wrapper (CC=mpicc, Intel MPI's
// mpiicc, Cray's cc) or CGO_CFLAGS/CGO_LDFLAGS supply them. The binding
// itself uses only MPI-3 calls and names MPI's handles only in C, so it
// compiles against any of them; Header and Library say which one a binary
// has (blastfleet-engine --version). See docs/building-the-engine.md.
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
