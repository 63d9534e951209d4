package devstack

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// ClusterConfig makes the stack a real one-node Kubernetes cluster
// ("blastfleet dev up --cluster"): besides etcd and kube-apiserver,
// kube-controller-manager, kube-scheduler, containerd, a kubelet,
// kube-proxy and CoreDNS run as the supervisor's children, and the
// operator, the Kubeflow MPI operator and MinIO run as pods from images
// built here (hack/build-images.sh), installed with helm from charts/,
// and Kueue with its own chart.
// Partitions are MPIJobs the real MPI operator turns into pods.
type ClusterConfig struct {
	// Bin holds kubelet, kube-controller-manager, kube-scheduler,
	// kube-proxy and coredns (hack/install-cluster.sh).
	Bin string `json:"bin"`
	// Images holds the images as docker-archives (hack/build-images.sh):
	// pause, operator, worker, mpi-operator, minio.
	Images string `json:"images"`
	// ImageTag is the tag they were built with.
	ImageTag string `json:"imageTag"`
	// Helm is the helm binary; Charts the checkout's charts/.
	Helm   string `json:"helm"`
	Charts string `json:"charts"`
	// KueueChart is Kueue's own chart, from its module (charts/kueue).
	KueueChart string `json:"kueueChart"`
	// Argo, when set, is hack/install-argo.sh's directory: Argo
	// Workflows' controller is installed too (its image "argo"), so
	// campaigns may use spec.executor argo and databases build as
	// Workflows.
	Argo string `json:"argo,omitempty"`
	// WithArgo asks Resolve to fill Argo (BLASTFLEET_ARGO, else
	// hack/install-argo.sh).
	WithArgo bool `json:"-"`
}

// kueueVersion is the Kueue the cluster installs: hack/install-cluster.sh
// builds the same (a test keeps the two equal).
const kueueVersion = "v0.17.0"

// The cluster's network, private to this machine: a bridge the stack
// creates, whose address is the node's (the API server, the kubelet and
// CoreDNS listen there, the pods reach them through it), pod addresses
// from the bridge's subnet, and Service addresses that exist only in
// kube-proxy's rules. Nothing is routed out. One cluster per machine:
// the bridge and the DNS port are fixed.
const (
	bridgeName     = "bfdev0"
	nodeIP         = "10.213.0.1"
	podCIDR        = "10.213.0.0/24"
	serviceCIDR    = "10.214.0.0/24"
	apiServiceIP   = "10.214.0.1"   // the kubernetes Service: the first address
	minioClusterIP = "10.214.0.100" // fixed, so objects name one endpoint across restarts
	nodeName       = "blastfleet-dev"
	clusterDomain  = "cluster.local"
	// clusterNamespace holds what the stack installs (MinIO, the
	// operator, the MPI operator); campaigns run in Config.Namespace.
	clusterNamespace = "blastfleet-system"
	cgroupRoot       = "/blastfleet-dev"
)

func (p paths) containerd() string             { return p.join("containerd") }
func (p paths) containerdSocket() string       { return p.join("containerd", "containerd.sock") }
func (p paths) containerdConfig() string       { return p.join("containerd", "config.toml") }
func (p paths) cniConf() string                { return p.join("cni", "net.d") }
func (p paths) cniData() string                { return p.join("cni", "ipam") }
func (p paths) kubelet() string                { return p.join("kubelet") }
func (p paths) kubeletConfig() string          { return p.join("kubelet.yaml") }
func (p paths) coreFile() string               { return p.join("Corefile") }
func (p paths) netState() string               { return p.join("network.json") }
func (p paths) userKubeconfig(u string) string { return p.join(u + ".kubeconfig") }

// check reports what cluster mode lacks before anything starts.
func (c *ClusterConfig) check() error {
	var missing []string
	for _, f := range []string{"kubelet", "kube-controller-manager", "kube-scheduler", "kube-proxy", "coredns"} {
		if _, err := os.Stat(filepath.Join(c.Bin, f)); err != nil {
			missing = append(missing, f+" (hack/install-cluster.sh)")
		}
	}
	for _, img := range c.images() {
		if _, err := os.Stat(filepath.Join(c.Images, img+".tar")); err != nil {
			missing = append(missing, "image "+img+" (make images)")
		}
	}
	for _, f := range []string{"containerd", "containerd-shim-runc-v2", "runc", "iptables", "ctr"} {
		if _, err := exec.LookPath(f); err != nil {
			missing = append(missing, f+" (hack/install-deps.sh installs Debian's containerd, runc, iptables)")
		}
	}
	if _, err := os.Stat("/usr/lib/cni/bridge"); err != nil {
		missing = append(missing, "CNI plugins in /usr/lib/cni (Debian's containernetworking-plugins)")
	}
	if c.Argo != "" {
		for _, f := range []string{"workflow-controller", "argoexec", "crds", "rbac"} {
			if _, err := os.Stat(filepath.Join(c.Argo, f)); err != nil {
				missing = append(missing, "Argo's "+f+" (hack/install-argo.sh)")
			}
		}
	}
	if _, err := os.Stat(c.Helm); err != nil {
		missing = append(missing, "helm (hack/install-helm.sh)")
	}
	if _, err := os.Stat(filepath.Join(c.KueueChart, "Chart.yaml")); err != nil {
		missing = append(missing, "Kueue's chart (go mod download sigs.k8s.io/kueue@"+kueueVersion+")")
	}
	if os.Geteuid() != 0 {
		missing = append(missing, "root: a kubelet, containerd and a bridge need it")
	}
	if len(missing) > 0 {
		return fmt.Errorf("cluster mode needs: %v", missing)
	}
	return nil
}

// clusterImages are the archives imported into containerd at every start.
var clusterImages = []string{"pause", "operator", "worker", "mpi-operator", "kueue", "minio"}

// images are the archives this cluster imports: clusterImages, and
// Argo's with Argo.
func (c *ClusterConfig) images() []string {
	if c.Argo != "" {
		return append(clusterImages[:len(clusterImages):len(clusterImages)], "argo")
	}
	return clusterImages
}

func (c *ClusterConfig) image(name string) string {
	return "localhost/blastfleet/" + name + ":" + c.ImageTag
}
