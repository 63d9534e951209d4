package devstack

import (
	"context"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/internal/operator/kubescheme"
)

// corednsUser reads Services, EndpointSlices, pods and namespaces.
const corednsUser = "blastfleet-dev:coredns"

// clusterCerts are the control plane's and the node's identities: the
// users the API server's default RBAC and its Node authorizer know.
func clusterCerts() []certSpec {
	return []certSpec{
		clientCert("kubelet", "system:node:"+nodeName, "system:nodes"),
		{"kubelet-serving", &x509.Certificate{Subject: pkix.Name{CommonName: nodeName}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
			DNSNames: []string{nodeName}, IPAddresses: []net.IP{net.ParseIP(nodeIP)}}},
		// kube-controller-manager's and kube-scheduler's health endpoints
		// on loopback, so dev status checks them against the stack's CA.
		{"loopback-serving", &x509.Certificate{Subject: pkix.Name{CommonName: "blastfleet-dev-loopback"}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
			DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.ParseIP(loopback)}}},
		clientCert("kube-controller-manager", "system:kube-controller-manager"),
		clientCert("kube-scheduler", "system:kube-scheduler"),
		clientCert("kube-proxy", "system:kube-proxy"),
		clientCert("coredns", corednsUser),
	}
}

// startCluster brings up the one-node cluster in dependency order: the
// network, the control plane, the node (containerd with our images, the
// kubelet, kube-proxy, CoreDNS), then what is installed on it as users
// install it: MinIO as a pod, the MPI operator and blastfleet with helm.
func (s *supervisor) startCluster(ctx, runCtx context.Context) error {
	cfg, p, cc := s.cfg, s.p, s.cfg.Cluster
	ports, moved, err := loadPorts(p.ports())
	if err != nil {
		return err
	}
	for _, m := range moved {
		s.warn("%s", m)
	}
	cp, err := pickClusterPorts(ports)
	if err != nil {
		return err
	}
	creds, err := loadCredentials(p.credentials())
	if err != nil {
		return fmt.Errorf("MinIO credentials: %w", err)
	}
	// One endpoint for pods and for this machine: kube-proxy's rules
	// serve the Service address to both.
	creds.Endpoint, creds.Region, creds.Bucket = "http://"+net.JoinHostPort(minioClusterIP, "9000"), region, cfg.Bucket
	creds.Secret = cfg.Namespace + "/" + SecretName
	k := pki{p.pki()}
	if err := k.ensure(clusterCerts()...); err != nil {
		return fmt.Errorf("certificates: %w", err)
	}
	apiURL := "https://" + net.JoinHostPort(nodeIP, strconv.Itoa(ports.APIServer))
	if err := writeKubeconfig(p.kubeconfig(), k, apiURL, "admin", cfg.Namespace); err != nil {
		return err
	}
	for _, u := range []string{"kubelet", "kube-controller-manager", "kube-scheduler", "kube-proxy", "coredns"} {
		if err := writeKubeconfig(p.userKubeconfig(u), k, apiURL, u, "default"); err != nil {
			return err
		}
	}
	s.update(func(st *State) {
		st.MinIO, st.Prometheus = creds, "http://"+hostPort(ports.Prometheus)
		st.Cluster = &ClusterInfo{Node: nodeName, NodeIP: nodeIP, PodCIDR: podCIDR, ServiceCIDR: serviceCIDR, Bridge: bridgeName,
			Namespace: clusterNamespace, ContainerdSocket: p.containerdSocket()}
	})
	if err := networkUp(p); err != nil {
		return fmt.Errorf("network: %w", err)
	}
	if err := cgroupsUp(); err != nil {
		return err
	}
	s.step("network ready: bridge %s with %s, pods %s, Services %s", bridgeName, nodeIP, podCIDR, serviceCIDR)

	if err := s.run(ctx, runCtx, &component{child: etcdChild(cfg, p, ports), url: "http://" + hostPort(ports.Etcd),
		health: "http://" + hostPort(ports.Etcd) + "/health", notes: "data " + p.etcdData()}); err != nil {
		return err
	}
	api, err := apiserverChild(cfg, p, ports)
	if err != nil {
		return err
	}
	if err := s.run(ctx, runCtx, &component{child: api, url: apiURL, health: apiURL + "/readyz", notes: "kubeconfig " + p.kubeconfig()}); err != nil {
		return err
	}
	rc, err := RESTConfig(p.kubeconfig())
	if err != nil {
		return err
	}
	c, err := client.New(rc, client.Options{Scheme: kubescheme.New()})
	if err != nil {
		return fmt.Errorf("API client: %w", err)
	}
	if err := waitNamespace(ctx, c, "default"); err != nil {
		return err
	}
	if err := corednsRBAC(ctx, c); err != nil {
		return err
	}
	for _, cs := range []struct {
		ch   *child
		port int
	}{{controllerManagerChild(cc, p, cp), cp.controllerManager}, {schedulerChild(cc, p, cp), cp.scheduler}} {
		url := "https://" + hostPort(cs.port)
		if err := s.run(ctx, runCtx, &component{child: cs.ch, url: url, health: url + "/healthz"}); err != nil {
			return err
		}
	}

	ctrd, err := containerdChild(cc, p)
	if err != nil {
		return err
	}
	if err := s.run(ctx, runCtx, &component{child: ctrd, url: "unix://" + p.containerdSocket(), notes: "root " + p.containerd()}); err != nil {
		return err
	}
	t0 := time.Now()
	if err := importImages(ctx, cc, p); err != nil {
		return err
	}
	s.step("images imported into containerd (%.1fs): %v", time.Since(t0).Seconds(), cc.images())
	kl, err := kubeletChild(cc, p, cp)
	if err != nil {
		return err
	}
	if err := s.run(ctx, runCtx, &component{child: kl, url: "https://" + net.JoinHostPort(nodeIP, "10250"),
		health: cp.kubeletHealth(), notes: "root " + p.kubelet()}); err != nil {
		return err
	}
	if err := s.run(ctx, runCtx, &component{child: kubeProxyChild(cc, p, cp), url: "iptables",
		health: cp.proxyHealth()}); err != nil {
		return err
	}
	dns, err := corednsChild(cc, p, cp)
	if err != nil {
		return err
	}
	if err := s.run(ctx, runCtx, &component{child: dns, url: "dns://" + nodeIP + ":53",
		health: cp.dnsReadyURL()}); err != nil {
		return err
	}
	if err := waitNodeReady(ctx, c, 2*time.Minute); err != nil {
		return err
	}
	s.step("node %s Ready", nodeName)

	if err := s.installOnCluster(ctx, c, p, creds); err != nil {
		return err
	}
	prom, err := clusterPrometheusChild(cfg, p, ports)
	if err != nil {
		return err
	}
	promURL := "http://" + hostPort(ports.Prometheus)
	if err := s.run(ctx, runCtx, &component{child: prom, url: promURL, health: promURL + "/-/ready", notes: "config " + p.prometheusConfig()}); err != nil {
		return err
	}
	go s.watchPodTargets(runCtx, c)
	return nil
}

// importImages loads the image archives into containerd's k8s.io
// namespace, where the kubelet finds them (pull policy IfNotPresent:
// nothing is pulled).
func importImages(ctx context.Context, cc *ClusterConfig, p paths) error {
	for _, img := range cc.images() {
		ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
		err := runCtx(ctx, "ctr", "--address", p.containerdSocket(), "-n", "k8s.io", "images", "import",
			filepath.Join(cc.Images, img+".tar"))
		cancel()
		if err != nil {
			return fmt.Errorf("importing image %s: %w", img, err)
		}
	}
	return nil
}
