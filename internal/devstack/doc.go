// Package devstack is the local stack behind "blastfleet dev up | down |
// status": a whole blastfleet installation on one machine, on 127.0.0.1
// only, for trying the product and for the end-to-end tests.
//
// One detached supervisor process ("blastfleet-dev serve", started by Up
// in a session of its own) owns every component as a child process:
// etcd and kube-apiserver (with our CRDs, the MPIJob CRD and the
// operator's RBAC installed), a MinIO server with a bucket and the
// minio-credentials Secret, Prometheus, and the operator
// (blastfleet-manager). The local runner (internal/devstack/localrunner), which
// stands in for the MPI operator, the Job controller and the kubelet,
// runs inside the supervisor, so MPIJob launchers and their ranks are
// its descendants. A small garbage collector deletes MPIJobs and Jobs
// whose owner is gone, since no kube-controller-manager runs.
//
// Every child is started with Setsid and Pdeathsig, so it dies with the
// supervisor, and carries MarkerEnv=<dir> in its environment, so Down can
// find and kill whatever is left even after a crash. The supervisor
// restarts a child that exits (as a Deployment restarts a pod), so a test
// can kill the operator or MinIO, and stops everything on SIGTERM.
//
// Everything lives under one directory (see paths): state.json (pids,
// ports, URLs; what status and down read), config.json (what up resolved
// for the supervisor), the kubeconfigs, certificates, data of etcd, MinIO
// and Prometheus, the runner's work dir and one log per component.
// Ports are kept in ports.json and reused by the next up, since the
// objects in etcd name the MinIO endpoint.
package devstack
