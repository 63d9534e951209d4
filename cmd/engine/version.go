package main

import (
	"fmt"

	"github.com/blastfleet/blastfleet/internal/engine/mpi"
	"github.com/blastfleet/blastfleet/internal/shared/buildinfo"
)

// version is set at build time: -ldflags "-X main.version=v0.3.0".
var version = ""

// versionText is what --version prints: the build, then the MPI the binary
// was compiled against (its mpi.h) and the MPI library it loaded, so a site
// can see which MPI a binary uses before it runs under mpirun or srun.
func versionText() string {
	s := buildinfo.Line("blastfleet-engine", version) + "\n"
	if mpi.Header() == "" {
		return s + "MPI: none (built without -tags mpi: runs only without mpirun)\n"
	}
	return s + fmt.Sprintf("MPI compiled against: %s\nMPI library loaded: %s\n", mpi.Header(), mpi.Library())
}
