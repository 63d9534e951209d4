package devstack

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// module is our Go module: the checkout holding it has the CRDs, the RBAC
// and the hack/ scripts the stack needs.
const module = "github.com/blastfleet/blastfleet"

// mpiOperatorModule holds the MPIJob CRD (manifests/base).
const mpiOperatorModule = "github.com/kubeflow/mpi-operator"

// Resolve fills what c leaves empty: the programs from binDir (make
// build's bin/), the CRDs and RBAC from the checkout (found from the
// working directory or binDir), etcd and kube-apiserver from
// KUBEBUILDER_ASSETS or hack/install-envtest.sh, MinIO from
// BLASTFLEET_MINIO, hack/install-minio.sh or PATH, Prometheus from PATH.
// The install scripts build what is missing (minutes, once per machine);
// their progress goes to progress.
func Resolve(c *Config, binDir string, progress io.Writer) error {
	c.defaults()
	if c.Dir != "" {
		abs, err := filepath.Abs(c.Dir)
		if err != nil {
			return err
		}
		c.Dir = abs
	}
	// The programs not given: in binDir, else beside the CLI (make build
	// puts them side by side).
	progDir := binDir
	if progDir == "" && c.CLI != "" {
		progDir = filepath.Dir(c.CLI)
	}
	for _, p := range []struct {
		dst  *string
		name string
	}{{&c.CLI, "blastfleet"}, {&c.Dev, "blastfleet-dev"}, {&c.Engine, "blastfleet-engine"}, {&c.Manager, "blastfleet-manager"}} {
		if *p.dst == "" && progDir != "" {
			*p.dst = filepath.Join(progDir, p.name)
		}
		if *p.dst != "" {
			if _, err := os.Stat(*p.dst); err != nil {
				return fmt.Errorf("%s: %w (make build builds it into bin/)", p.name, err)
			}
		}
	}
	root := ""
	if len(c.CRDs) == 0 || c.RBAC == "" || c.Assets == "" || c.MinIO == "" || c.Cluster != nil {
		var err error
		if root, err = findRepo(binDir); err != nil {
			return err
		}
	}
	if len(c.CRDs) == 0 {
		mpi, err := mpiJobCRD(root)
		if err != nil {
			return err
		}
		c.CRDs = []string{filepath.Join(root, "config/crd/bases"), mpi}
	}
	if c.RBAC == "" {
		c.RBAC = filepath.Join(root, "config/rbac/role.yaml")
	}
	if c.Assets == "" {
		c.Assets = os.Getenv("KUBEBUILDER_ASSETS")
	}
	if c.Assets == "" {
		out, err := runScript(filepath.Join(root, "hack/install-envtest.sh"), progress)
		if err != nil {
			return fmt.Errorf("etcd and kube-apiserver: %w", err)
		}
		c.Assets = out
	}
	if c.MinIO == "" {
		c.MinIO = os.Getenv("BLASTFLEET_MINIO")
	}
	if c.MinIO == "" {
		out, err := runScript(filepath.Join(root, "hack/install-minio.sh"), progress)
		if err != nil {
			if p, perr := exec.LookPath("minio"); perr == nil {
				out, err = p, nil
			}
		}
		if err != nil {
			return fmt.Errorf("MinIO server: %w", err)
		}
		c.MinIO = out
	}
	if c.Cluster != nil {
		if err := resolveCluster(c.Cluster, root, binDir, progress); err != nil {
			return err
		}
	}
	if c.Prometheus == "" {
		p, err := exec.LookPath("prometheus")
		if err != nil {
			return fmt.Errorf("prometheus is not installed (Debian package prometheus: hack/install-deps.sh installs it): %w", err)
		}
		c.Prometheus = p
	}
	return nil
}

// findRepo finds the checkout: upwards from the working directory, then
// from binDir (bin/ sits in it).
func findRepo(binDir string) (string, error) {
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if binDir != "" {
		if abs, err := filepath.Abs(binDir); err == nil {
			starts = append(starts, abs)
		}
	}
	for _, d := range starts {
		for {
			if isOurModule(filepath.Join(d, "go.mod")) {
				return d, nil
			}
			parent := filepath.Dir(d)
			if parent == d {
				break
			}
			d = parent
		}
	}
	return "", fmt.Errorf("cannot find the blastfleet checkout (module %s) above %s: the stack reads its CRDs and RBAC from it; run from the checkout", module, strings.Join(starts, " or "))
}

func isOurModule(gomod string) bool {
	f, err := os.Open(gomod)
	if err != nil {
		return false
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if line := strings.TrimSpace(s.Text()); strings.HasPrefix(line, "module ") {
			return strings.TrimSpace(strings.TrimPrefix(line, "module ")) == module
		}
	}
	return false
}

// mpiJobCRD is the MPIJob CRD of the mpi-operator version go.mod
// requires, from the module cache (downloaded if needed).
func mpiJobCRD(root string) (string, error) {
	dir, err := goCmd(root, "list", "-m", "-f", "{{.Dir}}", mpiOperatorModule)
	if err == nil && dir == "" {
		if _, err = goCmd(root, "mod", "download", mpiOperatorModule); err == nil {
			dir, err = goCmd(root, "list", "-m", "-f", "{{.Dir}}", mpiOperatorModule)
		}
	}
	if err != nil {
		return "", fmt.Errorf("locating the MPIJob CRD in %s: %w", mpiOperatorModule, err)
	}
	p := filepath.Join(dir, "manifests/base/kubeflow.org_mpijobs.yaml")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("MPIJob CRD: %w", err)
	}
	return p, nil
}

func goCmd(dir string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// runScript runs one of hack/'s install scripts, which print the path
// they installed on stdout and their progress on stderr.
func runScript(path string, progress io.Writer) (string, error) {
	cmd := exec.Command(path)
	cmd.Dir = filepath.Dir(filepath.Dir(path))
	if progress != nil {
		cmd.Stderr = progress
	}
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// resolveCluster fills what cluster mode needs: the node's and the
// control plane's binaries (hack/install-cluster.sh), the images
// (hack/build-images.sh, when none were built), helm and the charts.
func resolveCluster(cc *ClusterConfig, root, binDir string, progress io.Writer) error {
	if cc.ImageTag == "" {
		cc.ImageTag = "dev"
	}
	if cc.Charts == "" {
		cc.Charts = filepath.Join(root, "charts")
	}
	for _, s := range []struct {
		dst    *string
		script string
		what   string
	}{
		{&cc.Bin, "hack/install-cluster.sh", "kubelet, kube-controller-manager, kube-scheduler, kube-proxy and CoreDNS"},
		{&cc.Helm, "hack/install-helm.sh", "helm"},
	} {
		if *s.dst != "" {
			continue
		}
		out, err := runScript(filepath.Join(root, s.script), progress)
		if err != nil {
			return fmt.Errorf("%s: %w", s.what, err)
		}
		*s.dst = out
	}
	if cc.WithArgo && cc.Argo == "" {
		cc.Argo = os.Getenv("BLASTFLEET_ARGO")
		if cc.Argo == "" {
			out, err := runScript(filepath.Join(root, "hack/install-argo.sh"), progress)
			if err != nil {
				return fmt.Errorf("Argo Workflows (hack/install-argo.sh): %w", err)
			}
			cc.Argo = out
		}
	}
	if cc.KueueChart == "" {
		dir, err := goCmd(root, "mod", "download", "-json", "sigs.k8s.io/kueue@"+kueueVersion)
		if err != nil {
			return fmt.Errorf("Kueue's chart: %w", err)
		}
		var m struct{ Dir string }
		if err := json.Unmarshal([]byte(dir), &m); err != nil || m.Dir == "" {
			return fmt.Errorf("Kueue's chart: go mod download says %q", dir)
		}
		cc.KueueChart = filepath.Join(m.Dir, "charts", "kueue")
	}
	if cc.Images == "" {
		cc.Images = os.Getenv("BLASTFLEET_IMAGES")
	}
	if cc.Images == "" {
		out, err := runScript(filepath.Join(root, "hack/build-images.sh"), progress)
		if err != nil {
			return fmt.Errorf("images (make images): %w", err)
		}
		cc.Images = out
	}
	return nil
}
