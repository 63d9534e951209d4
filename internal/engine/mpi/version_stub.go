//go:build !mpi

package mpi

// Header is empty: this binary was built without MPI.
func Header() string { return "" }

// Library is empty: this binary was built without MPI.
func Library() string { return "" }
