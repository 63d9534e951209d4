package devstack

import (
	"context"
	"fmt"
	"time"
)

// workerImage is what the operator puts in pod templates; the local
// runner ignores images and runs the programs of this machine.
const workerImage = "local"

// operatorChild is blastfleet-manager as it runs in its Deployment, with
// its own user (bound to its ClusterRole) and metrics over plain HTTP on
// loopback, where no authentication is needed.
func operatorChild(cfg *Config, p paths, ports Ports) *child {
	health := "http://" + hostPort(ports.OperatorProbes)
	return &child{
		name: "operator", path: cfg.Manager, logPath: p.log("operator"),
		args: []string{
			"--kubeconfig=" + p.operatorKubeconfig(),
			"--metrics-bind-address=" + hostPort(ports.OperatorMetrics),
			"--metrics-secure=false",
			"--health-probe-bind-address=" + hostPort(ports.OperatorProbes),
			"--worker-image=" + workerImage,
			"--ledger-poll-interval=" + cfg.LedgerPollInterval.D().String(),
			fmt.Sprintf("--partition-ttl=%s", time.Hour),
			// MinIO listens on loopback: an internal endpoint.
			"--allow-internal-endpoints=true",
		},
		ready: func(ctx context.Context) error { return probe(ctx, httpClient, health+"/readyz") },
	}
}
