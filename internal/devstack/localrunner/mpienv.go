package localrunner

import (
	"strconv"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
)

// operatorEnv is what the MPI operator adds to the launcher container
// (after the container's own env, so it wins), minus what would point at
// the cluster: OMPI_MCA_orte_default_hostfile lists worker pods' DNS
// names, and without a hostfile mpirun runs every rank on localhost.
func operatorEnv(job *kubeflow.MPIJob) *envList {
	env := newEnvList()
	env.set("K_MPI_JOB_ROLE", "launcher")
	slots := "1"
	if job.Spec.SlotsPerWorker != nil {
		slots = strconv.Itoa(int(*job.Spec.SlotsPerWorker))
	}
	switch job.Spec.MPIImplementation {
	case kubeflow.MPIImplementationOpenMPI, "":
		env.set("OMPI_MCA_orte_keep_fqdn_hostnames", "true")
		env.set("OMPI_MCA_orte_set_default_slots", slots)
	case kubeflow.MPIImplementationIntel:
		env.set("I_MPI_PERHOST", slots)
	}
	return env
}

// localMPIEnv is what OpenMPI needs on a developer machine or in a CI
// container: ranks may outnumber cores (yield when idle), we may be root,
// and containers forbid the ptrace-based single-copy mechanism.
func localMPIEnv() *envList {
	env := newEnvList()
	env.set("OMPI_ALLOW_RUN_AS_ROOT", "1")
	env.set("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
	env.set("OMPI_MCA_mpi_yield_when_idle", "1")
	env.set("OMPI_MCA_btl_vader_single_copy_mechanism", "none")
	// Ranks told to stop get 3 s to record it before mpirun's SIGKILL,
	// as in the cluster's partitions (controllers/executor/mpijob).
	env.set("OMPI_MCA_odls_base_sigkill_timeout", "3")
	return env
}
