//go:build mpi && !mpich && !mpicc

package mpi

// The default MPI: Open MPI through its pkg-config file (Debian's
// libopenmpi-dev). Other MPIs: cgo_mpich.go, or the mpicc tag (docs/building-the-engine.md).

// #cgo pkg-config: ompi
import "C"
