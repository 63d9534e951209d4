package devstack

import (
	"context"
	"fmt"
	"os"
	"time"
)

// prometheusConfig scrapes, every 5 s: the operator's metrics (plain
// HTTP on loopback: --metrics-secure=false), the engine ranks the local
// runner starts (file_sd: the supervisor rewrites engine-targets.json
// with each running MPIJob's block of metrics ports, rank r on base+r,
// as BLASTFLEET_METRICS_PORT_BASE tells the launcher, and each rank
// serves there on loopback),
// MinIO, etcd and Prometheus itself.
func prometheusConfig(p paths, ports Ports) string {
	return promHeader + fmt.Sprintf(`  - job_name: blastfleet-operator
    static_configs:
      - targets: [%q]
  - job_name: blastfleet-engine
    # The ranks' own namespace/campaign/rank labels win over the targets'.
    honor_labels: true
    file_sd_configs:
      - files: [%q]
        refresh_interval: 5s
`, hostPort(ports.OperatorMetrics), p.engineTargets()) + commonScrapes(hostPort(ports.MinIO), ports)
}

func prometheusChild(cfg *Config, p paths, ports Ports) (*child, error) {
	if err := os.MkdirAll(p.prometheusData(), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(p.prometheusConfig(), []byte(prometheusConfig(p, ports)), 0o644); err != nil {
		return nil, fmt.Errorf("prometheus config: %w", err)
	}
	if _, err := os.Stat(p.engineTargets()); err != nil {
		if err := writeTargets(p.engineTargets(), nil); err != nil {
			return nil, err
		}
	}
	url := "http://" + hostPort(ports.Prometheus)
	return &child{
		name: "prometheus", path: cfg.Prometheus, logPath: p.log("prometheus"),
		args: []string{
			"--config.file=" + p.prometheusConfig(),
			"--storage.tsdb.path=" + p.prometheusData(),
			"--storage.tsdb.retention.time=" + (7 * 24 * time.Hour).String(),
			"--web.listen-address=" + hostPort(ports.Prometheus),
		},
		ready: func(ctx context.Context) error { return probe(ctx, httpClient, url+"/-/ready") },
	}, nil
}

// clusterPrometheusConfig scrapes, on the cluster: every pod port whose
// name starts with "metrics" (the engine ranks of worker pods, as the
// chart's PodMonitor does; Debian's Prometheus lacks Kubernetes service
// discovery, so the supervisor writes them to a file_sd file from the
// API server's pods: watchPodTargets), MinIO through its Service, etcd
// and Prometheus itself.
func clusterPrometheusConfig(p paths, ports Ports) string {
	return promHeader + fmt.Sprintf(`  - job_name: blastfleet-engine
    honor_labels: true
    file_sd_configs:
      - files: [%q]
        refresh_interval: 5s
`, p.engineTargets()) + commonScrapes(minioClusterIP+":9000", ports)
}

func clusterPrometheusChild(cfg *Config, p paths, ports Ports) (*child, error) {
	c, err := prometheusChild(cfg, p, ports)
	if err != nil {
		return nil, err
	}
	return c, os.WriteFile(p.prometheusConfig(), []byte(clusterPrometheusConfig(p, ports)), 0o644)
}

const promHeader = `# Written by blastfleet dev up; rewritten at every start.
global:
  scrape_interval: 5s
  evaluation_interval: 15s
  external_labels:
    stack: blastfleet-dev
scrape_configs:
`

// commonScrapes are the jobs of both modes: MinIO at minio, etcd and
// Prometheus itself.
func commonScrapes(minio string, ports Ports) string {
	return fmt.Sprintf(`  - job_name: minio
    metrics_path: /minio/v2/metrics/cluster
    static_configs:
      - targets: [%q]
  - job_name: etcd
    static_configs:
      - targets: [%q]
  - job_name: prometheus
    static_configs:
      - targets: [%q]
`, minio, hostPort(ports.Etcd), hostPort(ports.Prometheus))
}
