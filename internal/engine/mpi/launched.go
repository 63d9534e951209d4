package mpi

import "os"

// MaxMessage is the largest message Send accepts: MPI counts are C ints.
const MaxMessage = 1<<31 - 1

// launcherVars are set for every rank by an MPI launcher: mpirun/mpiexec of
// OpenMPI (OMPI_*), a PMI-1/PMI-2 launcher such as MPICH's Hydra or srun
// --mpi=pmi2 (PMI_*), and a PMIx server such as OpenMPI 4+'s or srun
// --mpi=pmix (PMIX_*).
var launcherVars = []string{
	"OMPI_COMM_WORLD_SIZE",
	"OMPI_COMM_WORLD_RANK",
	"PMI_SIZE",
	"PMI_RANK",
	"PMIX_RANK",
	"PMIX_NAMESPACE",
}

// Launched reports whether the process was started by an MPI launcher
// (mpirun, mpiexec, or srun with a PMI plugin), so the engine knows to use
// MPI rather than the in-process transport.
//
// Slurm's own variables (SLURM_PROCID, SLURM_NTASKS) are deliberately not
// enough: they are also set for a plain batch script or an srun of a non-MPI
// step, where MPI_Init would start a singleton (size 1) instead of joining
// the other tasks. srun sets PMI_* or PMIX_* only when it wires up MPI, and
// those are covered above.
func Launched() bool {
	for _, v := range launcherVars {
		if os.Getenv(v) != "" {
			return true
		}
	}
	return false
}
