// Package kubetest starts a real kube-apiserver and etcd (envtest) for
// tests, with blastfleet's CRDs and the MPI operator's MPIJob CRD loaded,
// so tests see the same validation, defaulting and CEL rules a cluster
// applies. The binaries are built from their Go modules by
// hack/install-envtest.sh; without them the test is skipped, or fails
// under BLASTFLEET_REQUIRE_REAL=1.
package kubetest
