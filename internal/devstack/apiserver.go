package devstack

import (
	"context"
	"fmt"
	"path/filepath"
)

// apiserverChild is kube-apiserver on loopback, over etcd, with client
// certificate authentication (the stack's CA) and RBAC. The flags follow
// controller-runtime's envtest, which these binaries are built for.
func apiserverChild(cfg *Config, p paths, ports Ports) (*child, error) {
	k := pki{p.pki()}
	url := "https://" + hostPort(ports.APIServer)
	c := &child{
		name: "kube-apiserver", path: filepath.Join(cfg.Assets, "kube-apiserver"), logPath: p.log("kube-apiserver"),
		args: []string{
			"--bind-address=" + loopback,
			"--advertise-address=" + loopback,
			fmt.Sprintf("--secure-port=%d", ports.APIServer),
			"--etcd-servers=http://" + hostPort(ports.Etcd),
			"--tls-cert-file=" + k.path("apiserver.crt"),
			"--tls-private-key-file=" + k.path("apiserver.key"),
			"--client-ca-file=" + k.path("ca.crt"),
			"--authorization-mode=RBAC",
			"--service-account-issuer=" + url + "/",
			"--service-account-key-file=" + k.path("sa.key"),
			"--service-account-signing-key-file=" + k.path("sa.key"),
			"--service-cluster-ip-range=10.0.0.0/24",
			// No controller manager makes service account tokens.
			"--disable-admission-plugins=ServiceAccount",
			"--allow-privileged=true",
			"--profiling=false",
		},
	}
	hc, err := tlsClient(k.path("ca.crt"))
	if err != nil {
		return nil, err
	}
	c.ready = func(ctx context.Context) error { return probe(ctx, hc, url+"/readyz") }
	return c, nil
}
