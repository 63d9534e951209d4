package devstack

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
)

// clusterPorts are the loopback ports of the cluster's components'
// health endpoints: picked afresh at every start, since nothing kept in
// etcd names them.
type clusterPorts struct {
	controllerManager, scheduler, kubeletHealthz, proxyHealthz, proxyMetrics, dnsHealth, dnsReady int
}

// The health URLs of the kubelet, kube-proxy and CoreDNS: what their
// ready checks probe and what dev status shows.
func (cp clusterPorts) kubeletHealth() string {
	return "http://" + hostPort(cp.kubeletHealthz) + "/healthz"
}
func (cp clusterPorts) proxyHealth() string {
	return "http://" + hostPort(cp.proxyHealthz) + "/healthz"
}
func (cp clusterPorts) dnsReadyURL() string { return "http://" + hostPort(cp.dnsReady) + "/ready" }

func pickClusterPorts(taken Ports) (clusterPorts, error) {
	used := map[int]bool{taken.Etcd: true, taken.EtcdPeer: true, taken.APIServer: true, taken.MinIO: true,
		taken.MinIOConsole: true, taken.Prometheus: true, taken.OperatorMetrics: true, taken.OperatorProbes: true}
	var cp clusterPorts
	for _, dst := range []*int{&cp.controllerManager, &cp.scheduler, &cp.kubeletHealthz, &cp.proxyHealthz, &cp.proxyMetrics, &cp.dnsHealth, &cp.dnsReady} {
		p, err := freePort(used)
		if err != nil {
			return cp, err
		}
		*dst, used[p] = p, true
	}
	return cp, nil
}

// containerdChild is containerd with its root, state and socket in the
// stack's directory, so it stays apart from any containerd the machine
// runs. restrict_oom_score_adj: the sandbox lacks CAP_SYS_RESOURCE, and
// without it every pod sandbox fails ("can't get final child's PID").
func containerdChild(cc *ClusterConfig, p paths) (*child, error) {
	conf := fmt.Sprintf(`# Written by blastfleet dev up --cluster; rewritten at every start.
version = 2
root = %q
state = %q
[grpc]
  address = %q
[ttrpc]
  address = %q
[plugins."io.containerd.internal.v1.opt"]
  path = %q
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = %q
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = %q
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
`, p.join("containerd", "root"), p.join("containerd", "state"), p.containerdSocket(), p.containerdSocket()+".ttrpc",
		p.join("containerd", "opt"), cc.image("pause"), p.cniConf())
	// The pods' network: the stack's bridge, addresses from its subnet.
	cni := fmt.Sprintf(`{
  "cniVersion": "1.0.0",
  "name": "blastfleet-dev",
  "plugins": [{
    "type": "bridge", "bridge": %q, "isGateway": true, "ipMasq": false, "hairpinMode": true,
    "ipam": {"type": "host-local", "dataDir": %q,
             "ranges": [[{"subnet": %q, "gateway": %q, "rangeStart": "10.213.0.10"}]],
             "routes": [{"dst": "0.0.0.0/0"}]}
  }]
}
`, bridgeName, p.cniData(), podCIDR, nodeIP)
	for _, d := range []string{p.containerd(), p.cniConf(), p.cniData()} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(p.containerdConfig(), []byte(conf), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(p.cniConf(), "10-blastfleet-dev.conflist"), []byte(cni), 0o644); err != nil {
		return nil, err
	}
	path, err := exec.LookPath("containerd")
	if err != nil {
		return nil, err
	}
	return &child{
		name: "containerd", path: path, logPath: p.log("containerd"),
		args: []string{"--config", p.containerdConfig(), "--log-level", "warn"},
		ready: func(ctx context.Context) error {
			return runCtx(ctx, "ctr", "--address", p.containerdSocket(), "version")
		},
	}, nil
}

// kubeletChild is the node: cgroupfs and cgroup v1 (these machines'),
// no swap check, the stack's containerd, CoreDNS on the node's address,
// and its API on the node's address with certificates from the stack's
// CA (the API server checks it; kubectl logs and exec go through it).
func kubeletChild(cc *ClusterConfig, p paths, cp clusterPorts) (*child, error) {
	k := pki{p.pki()}
	conf := fmt.Sprintf(`# Written by blastfleet dev up --cluster; rewritten at every start.
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: %s
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: %d
tlsCertFile: %s
tlsPrivateKeyFile: %s
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: false}
  x509: {clientCAFile: %s}
authorization: {mode: AlwaysAllow}
cgroupDriver: cgroupfs
cgroupRoot: %s
failCgroupV1: false
failSwapOn: false
containerRuntimeEndpoint: unix://%s
clusterDNS: [%s]
clusterDomain: %s
resolvConf: /etc/resolv.conf
# A development node on a shared disk: evict only when it is nearly full.
evictionHard: {memory.available: "100Mi", nodefs.available: "3%%", imagefs.available: "3%%"}
imageGCHighThresholdPercent: 98
imageGCLowThresholdPercent: 95
serializeImagePulls: false
staticPodPath: ""
`, nodeIP, cp.kubeletHealthz, k.path("kubelet-serving.crt"), k.path("kubelet-serving.key"), k.path("ca.crt"),
		cgroupRoot, p.containerdSocket(), nodeIP, clusterDomain)
	if err := os.WriteFile(p.kubeletConfig(), []byte(conf), 0o644); err != nil {
		return nil, err
	}
	return &child{
		name: "kubelet", path: filepath.Join(cc.Bin, "kubelet"), logPath: p.log("kubelet"),
		args: []string{
			"--config=" + p.kubeletConfig(),
			"--kubeconfig=" + p.userKubeconfig("kubelet"),
			"--root-dir=" + p.kubelet(),
			"--hostname-override=" + nodeName,
			"--node-ip=" + nodeIP,
			"--v=1",
		},
		ready: func(ctx context.Context) error {
			return probe(ctx, httpClient, cp.kubeletHealth())
		},
	}, nil
}

// controllerManagerChild runs the real controllers (Job, ReplicaSet,
// Deployment, garbage collector, service accounts, endpoints, ...), each
// with its own service account's credentials, as kubeadm sets it up.
func controllerManagerChild(cc *ClusterConfig, p paths, cp clusterPorts) *child {
	k := pki{p.pki()}
	return &child{
		name: "kube-controller-manager", path: filepath.Join(cc.Bin, "kube-controller-manager"), logPath: p.log("kube-controller-manager"),
		args: append(controlPlaneArgs(p, "kube-controller-manager", cp.controllerManager),
			"--use-service-account-credentials=true",
			"--service-account-private-key-file="+k.path("sa.key"),
			"--root-ca-file="+k.path("ca.crt"),
			"--cluster-name="+nodeName,
			"--service-cluster-ip-range="+serviceCIDR,
		),
		ready: func(ctx context.Context) error {
			url := "https://" + hostPort(cp.controllerManager) + "/healthz"
			return probe(ctx, clientFor(p.dir, url), url)
		},
	}
}

// controlPlaneArgs are the flags kube-controller-manager and
// kube-scheduler share: their user's kubeconfig (also for checking who
// calls their health endpoint), that endpoint on loopback, one instance.
func controlPlaneArgs(p paths, name string, port int) []string {
	kc := p.userKubeconfig(name)
	return []string{
		"--kubeconfig=" + kc, "--authentication-kubeconfig=" + kc, "--authorization-kubeconfig=" + kc,
		"--bind-address=127.0.0.1", "--secure-port=" + strconv.Itoa(port),
		"--tls-cert-file=" + pki{p.pki()}.path("loopback-serving.crt"),
		"--tls-private-key-file=" + pki{p.pki()}.path("loopback-serving.key"),
		"--leader-elect=false",
		"--v=1",
	}
}

func schedulerChild(cc *ClusterConfig, p paths, cp clusterPorts) *child {
	return &child{
		name: "kube-scheduler", path: filepath.Join(cc.Bin, "kube-scheduler"), logPath: p.log("kube-scheduler"),
		args: controlPlaneArgs(p, "kube-scheduler", cp.scheduler),
		ready: func(ctx context.Context) error {
			url := "https://" + hostPort(cp.scheduler) + "/healthz"
			return probe(ctx, clientFor(p.dir, url), url)
		},
	}
}

// kubeProxyChild makes Service addresses work in iptables mode. Every
// connection to a Service address is masqueraded: pods share one bridge,
// and a reply would otherwise skip the rules that translated its request.
func kubeProxyChild(cc *ClusterConfig, p paths, cp clusterPorts) *child {
	return &child{
		name: "kube-proxy", path: filepath.Join(cc.Bin, "kube-proxy"), logPath: p.log("kube-proxy"),
		args: []string{
			"--kubeconfig=" + p.userKubeconfig("kube-proxy"),
			"--hostname-override=" + nodeName,
			"--proxy-mode=iptables",
			"--cluster-cidr=" + podCIDR,
			"--masquerade-all",
			// The machine's conntrack settings are left as they are.
			"--conntrack-max-per-core=0",
			"--conntrack-tcp-timeout-established=0",
			"--conntrack-tcp-timeout-close-wait=0",
			"--metrics-bind-address=127.0.0.1:" + strconv.Itoa(cp.proxyMetrics),
			"--healthz-bind-address=127.0.0.1:" + strconv.Itoa(cp.proxyHealthz),
			"--v=1",
		},
		ready: func(ctx context.Context) error {
			return probe(ctx, httpClient, cp.proxyHealth())
		},
	}
}

// corednsChild is the cluster's DNS on the node's address (the kubelet's
// clusterDNS), answering for Services and pods of cluster.local from the
// API server. No upstream: these machines resolve nothing outside.
func corednsChild(cc *ClusterConfig, p paths, cp clusterPorts) (*child, error) {
	conf := fmt.Sprintf(`# Written by blastfleet dev up --cluster; rewritten at every start.
.:53 {
    bind %s
    errors
    health 127.0.0.1:%d
    ready 127.0.0.1:%d
    kubernetes %s in-addr.arpa ip6.arpa {
        kubeconfig %s %s
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
    }
    cache 5
}
`, nodeIP, cp.dnsHealth, cp.dnsReady, clusterDomain, p.userKubeconfig("coredns"), contextName)
	if err := os.WriteFile(p.coreFile(), []byte(conf), 0o644); err != nil {
		return nil, err
	}
	return &child{
		name: "coredns", path: filepath.Join(cc.Bin, "coredns"), logPath: p.log("coredns"),
		args: []string{"-conf", p.coreFile()},
		ready: func(ctx context.Context) error {
			return probe(ctx, httpClient, cp.dnsReadyURL())
		},
	}, nil
}
