package devstack

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
)

// apiserverChild is kube-apiserver on loopback, over etcd, with client
// certificate authentication (the stack's CA) and RBAC. The flags follow
// controller-runtime's envtest, which these binaries are built for. In
// cluster mode it listens on the node's address instead, where pods reach
// it, authorizes kubelets as nodes, and gives pods service account tokens.
func apiserverChild(cfg *Config, p paths, ports Ports) (*child, error) {
	k := pki{p.pki()}
	host := loopback
	if cfg.Cluster != nil {
		host = nodeIP
	}
	url := "https://" + net.JoinHostPort(host, strconv.Itoa(ports.APIServer))
	c := &child{
		name: "kube-apiserver", path: filepath.Join(cfg.Assets, "kube-apiserver"), logPath: p.log("kube-apiserver"),
		args: []string{
			"--bind-address=" + host,
			"--advertise-address=" + host,
			fmt.Sprintf("--secure-port=%d", ports.APIServer),
			"--etcd-servers=http://" + hostPort(ports.Etcd),
			"--tls-cert-file=" + k.path("apiserver.crt"),
			"--tls-private-key-file=" + k.path("apiserver.key"),
			"--client-ca-file=" + k.path("ca.crt"),
			"--service-account-issuer=" + url + "/",
			"--service-account-key-file=" + k.path("sa.key"),
			"--service-account-signing-key-file=" + k.path("sa.key"),
			"--allow-privileged=true",
			"--profiling=false",
		},
	}
	if cfg.Cluster != nil {
		c.args = append(c.args,
			"--authorization-mode=Node,RBAC",
			"--enable-admission-plugins=NodeRestriction",
			"--service-cluster-ip-range="+serviceCIDR,
			// kubectl logs and exec reach the kubelet as the admin.
			"--kubelet-client-certificate="+k.path("admin.crt"),
			"--kubelet-client-key="+k.path("admin.key"),
			"--kubelet-certificate-authority="+k.path("ca.crt"),
			"--kubelet-preferred-address-types=InternalIP")
	} else {
		c.args = append(c.args,
			"--authorization-mode=RBAC",
			"--service-cluster-ip-range=10.0.0.0/24",
			// No controller manager makes service account tokens.
			"--disable-admission-plugins=ServiceAccount")
	}
	hc, err := tlsClient(k.path("ca.crt"))
	if err != nil {
		return nil, err
	}
	c.ready = func(ctx context.Context) error { return probe(ctx, hc, url+"/readyz") }
	return c, nil
}
