// Package localrunner stands in for the MPI operator, the Job controller
// and the kubelet on a machine with no container runtime: it watches
// kubeflow.org/v2beta1 MPIJobs and batch/v1 Jobs on an API server and runs
// their containers' commands as local processes, then writes their status
// the way those controllers would, so the blastfleet operator cannot tell
// the difference.
//
// It is a development tool, used by `blastfleet dev up` and by integration
// tests. On a real cluster the MPI operator, the Job controller and the
// kubelet do this job; never run both against one cluster.
//
// What it does per kind:
//
//   - MPIJob: the launcher container's command runs once per MPIJob (mpirun
//     gets --oversubscribe; every rank runs on this machine), with its env
//     resolved (Secrets are read through the API server), the env the MPI
//     operator injects for OpenMPI (but no hostfile: ranks run on
//     localhost), and retries up to runPolicy.backoffLimit. Conditions
//     follow the MPI operator: Created, Running, then Succeeded or Failed;
//     Suspended when runPolicy.suspend is set.
//   - Job: one process per pod the Job controller would create (per
//     completion index for Indexed Jobs), within parallelism, retried per
//     backoffLimit or backoffLimitPerIndex, with status counts, indexes and
//     conditions the API server's strict Job status validation accepts.
//
// Each process leads its own session; killing a run signals every process
// in that session, which reaches mpirun's ranks even though they sit in
// process groups of their own. Output goes to a log file per MPIJob
// (LauncherLog) and per Job pod (JobLog); emptyDir mounts become
// directories under the work dir and the mount paths in args and env are
// rewritten to them.
//
// Differences from a cluster are listed in docs/localrunner.md.
package localrunner
