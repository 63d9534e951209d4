package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// The cluster's own components, as a cluster of this size would run them:
// each client's rate limit raised from its small default (5 requests a
// second for the MPI operator, 20 for the controller manager), which would
// otherwise be all the bench measures.

// schedulerProc is the real kube-scheduler.
func schedulerProc(dir string, b *binaries, kubeconfig string) (*proc, error) {
	cfg := filepath.Join(dir, "kube-scheduler.yaml")
	conf := fmt.Sprintf(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection: {kubeconfig: %q, qps: 200, burst: 400}
leaderElection: {leaderElect: false}
`, kubeconfig)
	if err := os.WriteFile(cfg, []byte(conf), 0o644); err != nil {
		return nil, err
	}
	return &proc{
		name: "kube-scheduler", path: filepath.Join(b.cluster, "kube-scheduler"), log: filepath.Join(dir, "kube-scheduler.log"),
		// No serving port: several benches and stacks share the machine.
		args: []string{"--config=" + cfg, "--secure-port=0", "--v=1"},
	}, nil
}

// controllerManagerProc is the real kube-controller-manager with the
// controllers the partitions need: Jobs (planning Jobs and launchers),
// the garbage collector (owned objects of deleted MPIJobs), service
// accounts (every namespace's default, which pods run as) and node
// lifecycle (it lifts the not-ready taint a new node is created with, once
// kwok reports it Ready).
func controllerManagerProc(dir string, b *binaries, kubeconfig string) *proc {
	return &proc{
		name: "kube-controller-manager", path: filepath.Join(b.cluster, "kube-controller-manager"), log: filepath.Join(dir, "kube-controller-manager.log"),
		args: []string{
			"--kubeconfig=" + kubeconfig,
			"--controllers=job-controller,garbage-collector-controller,serviceaccount-controller,ttl-after-finished-controller,node-lifecycle-controller",
			"--leader-elect=false", "--secure-port=0",
			"--kube-api-qps=200", "--kube-api-burst=400",
			"--v=1",
		},
	}
}

// mpiOperatorNamespace holds the MPI operator's leader election lock.
const mpiOperatorNamespace = "mpi-operator"

// mpiOperatorProc is the real Kubeflow MPI operator.
func mpiOperatorProc(dir string, b *binaries, kubeconfig string, threads int) *proc {
	return &proc{
		name: "mpi-operator", path: filepath.Join(b.cluster, "mpi-operator"), log: filepath.Join(dir, "mpi-operator.log"),
		args: []string{
			"--kubeConfig=" + kubeconfig,
			"--lock-namespace=" + mpiOperatorNamespace,
			"--threadiness=" + strconv.Itoa(threads),
			"--kube-api-qps=200", "--kube-api-burst=400",
			"--controller-queue-rate-limit=200", "--controller-queue-burst=1000",
		},
	}
}
