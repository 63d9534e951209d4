//go:build !mpi

package mpi

import (
	"errors"

	"github.com/blastfleet/blastfleet/internal/engine/transport"
)

// Init would start MPI; this binary was built without it.
func Init() (transport.Transport, error) {
	return nil, errors.New("mpi: binary built without MPI support (build with -tags mpi for Open MPI, -tags mpi,mpich for MPICH: docs/building-the-engine.md)")
}
