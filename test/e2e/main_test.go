// Package e2e runs the product the way a user does: campaigns applied
// with kubectl to a Kubernetes API, run by the operator as MPIJob
// partitions of blastfleet-engine, results compared with one unsharded
// BLAST run. By default the test brings up the local stack of "blastfleet
// dev up" (internal/devstack: etcd, kube-apiserver, MinIO, Prometheus,
// the operator and the local runner, on free loopback ports, in a temp
// dir) and injects faults into its processes: a partition's launcher
// killed, a worker rank killed, the operator killed (the supervisor
// restarts it), MinIO restarted. It ends with "blastfleet dev down" and
// checks that no process of the stack is left.
//
// With E2E_KUBECONFIG set it runs against that cluster instead (see
// cluster_test.go for the variables it needs); the faults that need the
// local stack's pids are skipped there.
package e2e

import (
	"testing"

	"github.com/blastfleet/blastfleet/test/support/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }
