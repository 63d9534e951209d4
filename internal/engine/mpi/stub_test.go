//go:build !mpi

package mpi

import (
	"strings"
	"testing"
)

func TestInitWithoutMPI(t *testing.T) {
	tr, err := Init()
	if err == nil || tr != nil {
		t.Fatalf("Init() = %v, %v; want an error", tr, err)
	}
	if !strings.Contains(err.Error(), "-tags mpi") {
		t.Errorf("error %q does not say how to build with MPI", err)
	}
}
