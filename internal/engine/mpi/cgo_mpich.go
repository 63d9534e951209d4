//go:build mpi && mpich && !mpicc

package mpi

// MPICH (and MPICH-ABI MPIs that ship mpich.pc) through pkg-config:
// go build -tags mpi,mpich (Debian's libmpich-dev).

// #cgo pkg-config: mpich
import "C"
