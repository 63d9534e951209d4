package devstack

import (
	"context"
	"fmt"
	"os"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	config "github.com/blastfleet/blastfleet/api/config/v1alpha1"
)

// workerImage is what the operator puts in pod templates; the local
// runner ignores images and runs the programs of this machine.
const workerImage = "local"

// operatorConfig is the stack's operator configuration: only what
// differs from the defaults, as the chart writes it. Stores that name no
// endpoint are the stack's MinIO (config/samples name none).
func operatorConfig(cfg *Config, ports Ports, minioEndpoint string) ([]byte, error) {
	c := map[string]any{
		"apiVersion":         config.GroupVersion,
		"kind":               config.Kind,
		"workerImage":        workerImage,
		"ledgerPollInterval": metav1.Duration{Duration: cfg.LedgerPollInterval.D()},
		"partitionTTL":       metav1.Duration{Duration: time.Hour},
		// Metrics over plain HTTP on loopback, where no authentication is
		// needed.
		"metrics": map[string]any{"bindAddress": hostPort(ports.OperatorMetrics), "secure": false},
		"health":  map[string]any{"healthProbeBindAddress": hostPort(ports.OperatorProbes)},
		// MinIO listens on loopback: an internal endpoint.
		"policy":       map[string]any{"allowInternalEndpoints": true},
		"defaultStore": map[string]any{"endpoint": minioEndpoint},
	}
	b, err := yaml.Marshal(c)
	if err != nil {
		return nil, err
	}
	// What the manager will refuse is refused here, naming the file.
	if _, err := config.Decode(b); err != nil {
		return nil, fmt.Errorf("operator configuration: %w", err)
	}
	return b, nil
}

// operatorChild is blastfleet-manager as it runs in its Deployment, with
// its own user (bound to its ClusterRole) and its configuration file in
// the stack's directory.
func operatorChild(cfg *Config, p paths, ports Ports, minioEndpoint string) (*child, error) {
	b, err := operatorConfig(cfg, ports, minioEndpoint)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(p.operatorConfig(), b, 0o644); err != nil {
		return nil, fmt.Errorf("operator configuration: %w", err)
	}
	health := "http://" + hostPort(ports.OperatorProbes)
	return &child{
		name: "operator", path: cfg.Manager, logPath: p.log("operator"),
		args: []string{
			"--kubeconfig=" + p.operatorKubeconfig(),
			"--config=" + p.operatorConfig(),
		},
		ready: func(ctx context.Context) error { return probe(ctx, httpClient, health+"/readyz") },
	}, nil
}
