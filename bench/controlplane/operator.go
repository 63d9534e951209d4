package main

import (
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
)

// operatorProc is blastfleet-manager as its Deployment runs it, against the
// bench's API server, with its metrics over plain HTTP on loopback (where
// the bench scrapes them) and extra flags from BENCH_OPERATOR_ARGS
// (space-separated), e.g. a reconcile concurrency to compare.
func operatorProc(dir string, b *binaries, kubeconfig, extra string) (p *proc, metricsURL string, err error) {
	ports, err := freePorts(2)
	if err != nil {
		return nil, "", err
	}
	metrics, probes := "127.0.0.1:"+strconv.Itoa(ports[0]), "127.0.0.1:"+strconv.Itoa(ports[1])
	args := []string{
		"--kubeconfig=" + kubeconfig,
		"--metrics-bind-address=" + metrics,
		"--metrics-secure=false",
		"--health-probe-bind-address=" + probes,
		"--worker-image=registry.example/blastfleet/worker:bench",
		// MinIO listens on loopback: an internal endpoint.
		"--allow-internal-endpoints=true",
	}
	args = append(args, strings.Fields(extra)...)
	return &proc{
		name: "operator", path: b.manager, log: filepath.Join(dir, "operator.log"), args: args,
		ready: httpReady(http.DefaultClient, "http://"+probes+"/readyz"),
	}, "http://" + metrics + "/metrics", nil
}
