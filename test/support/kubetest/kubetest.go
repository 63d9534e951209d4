package kubetest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/blastfleet/blastfleet/internal/operator/argowf"
	"github.com/blastfleet/blastfleet/internal/operator/kubescheme"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// MPIOperatorModule is the module whose CRD and types the operator uses.
const MPIOperatorModule = "github.com/kubeflow/mpi-operator"

// Env is a running API server.
type Env struct {
	Config *rest.Config
	Client client.Client
	Scheme *runtime.Scheme
	env    *envtest.Environment
}

// Scheme holds the built-in types, ours and the MPI operator's.
func Scheme() *runtime.Scheme { return kubescheme.New() }

// Start starts etcd and kube-apiserver with the CRDs installed and stops
// them when the test ends.
func Start(t testing.TB) *Env {
	t.Helper()
	return startWith(t, false)
}

// StartArgo is Start with Argo Workflows' CRDs installed too (ArgoCRDs):
// an operator started against it runs campaigns of executor argo and
// builds databases as Workflows.
func StartArgo(t testing.TB) *Env {
	t.Helper()
	return startWith(t, true)
}

func startWith(t testing.TB, argo bool) *Env {
	t.Helper()
	e, err := start(argo)
	if err != nil {
		if strings.Contains(err.Error(), "assets") {
			skipOrFatal(t, "%v", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Stop() })
	return e
}

// Stop stops the servers.
func (e *Env) Stop() {
	if e.env != nil {
		_ = e.env.Stop()
	}
}

func start(argo bool) (*Env, error) {
	assets, err := Assets()
	if err != nil {
		return nil, err
	}
	crds, err := CRDPaths()
	if err != nil {
		return nil, err
	}
	if argo {
		a, err := ArgoCRDs()
		if err != nil {
			return nil, err
		}
		crds = append(crds, a...)
	}
	return startCRDs(assets, crds)
}

// startCRDs starts the servers from assets with the CRDs in crds.
func startCRDs(assets string, crds []string) (*Env, error) {
	env := &envtest.Environment{
		BinaryAssetsDirectory: assets,
		CRDDirectoryPaths:     crds,
		ErrorIfCRDPathMissing: true,
		Scheme:                Scheme(),
		// envtest's 20 s was too short for kube-apiserver's start beside
		// make test's other suites on a slow 2-core host (load average 15-18:
		// four test/operator tests failed to start it, 5 tries each).
		ControlPlaneStartTimeout: 90 * time.Second,
	}
	cfg, err := env.Start()
	if err != nil {
		// The servers may be up already (a CRD the server refuses fails
		// Start after it): they must not outlive the test.
		_ = env.Stop()
		return nil, fmt.Errorf("starting kube-apiserver and etcd from %s: %w", assets, err)
	}
	c, err := client.New(cfg, client.Options{Scheme: env.Scheme})
	if err != nil {
		_ = env.Stop()
		return nil, fmt.Errorf("client: %w", err)
	}
	return &Env{Config: cfg, Client: c, Scheme: env.Scheme, env: env}, nil
}

var assetsOnce struct {
	sync.Once
	dir string
	err error
}

// Assets finds the etcd and kube-apiserver binaries: KUBEBUILDER_ASSETS,
// else hack/install-envtest.sh (which builds them once per machine).
func Assets() (string, error) {
	assetsOnce.Do(func() {
		if d := os.Getenv("KUBEBUILDER_ASSETS"); d != "" {
			assetsOnce.dir = d
			return
		}
		root, err := testenv.RepoRoot()
		if err != nil {
			assetsOnce.err = fmt.Errorf("envtest assets: %w", err)
			return
		}
		out, err := exec.Command(filepath.Join(root, "hack/install-envtest.sh")).Output()
		if err != nil {
			assetsOnce.err = fmt.Errorf("envtest assets: hack/install-envtest.sh: %w", err)
			return
		}
		assetsOnce.dir = strings.TrimSpace(string(out))
	})
	if assetsOnce.err != nil {
		return "", assetsOnce.err
	}
	for _, b := range []string{"etcd", "kube-apiserver"} {
		if _, err := os.Stat(filepath.Join(assetsOnce.dir, b)); err != nil {
			return "", fmt.Errorf("envtest assets: %w (run hack/install-envtest.sh)", err)
		}
	}
	return assetsOnce.dir, nil
}

// CRDPaths are our CRDs and the MPIJob CRD from the MPI operator's module
// at the version go.mod requires.
func CRDPaths() ([]string, error) {
	root, err := testenv.RepoRoot()
	if err != nil {
		return nil, err
	}
	mpi, err := MPIJobCRD()
	if err != nil {
		return nil, err
	}
	return []string{filepath.Join(root, "config/crd/bases"), mpi}, nil
}

// ArgoCRDs are the CRD files of the Argo Workflows kinds blastfleet
// creates, from Argo's module at argowf.Version (downloaded once into the
// module cache; the operator does not import it).
func ArgoCRDs() ([]string, error) {
	root, err := testenv.RepoRoot()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("go", "mod", "download", "-json", argowf.Module+"@"+argowf.Version)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go mod download %s@%s: %w", argowf.Module, argowf.Version, err)
	}
	var m struct{ Dir string }
	if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
		return nil, fmt.Errorf("go mod download %s@%s says %q", argowf.Module, argowf.Version, out)
	}
	var paths []string
	for _, kind := range []string{"workflows", "workflowtaskresults", "workflowtemplates"} {
		p := filepath.Join(m.Dir, "manifests/base/crds/minimal", "argoproj.io_"+kind+".yaml")
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("Argo's CRD: %w", err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// MPIJobCRD is the path of the MPIJob CRD in the module cache.
func MPIJobCRD() (string, error) {
	root, err := testenv.RepoRoot()
	if err != nil {
		return "", err
	}
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", MPIOperatorModule)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("locating %s: %w", MPIOperatorModule, err)
	}
	dir := strings.TrimSpace(string(out))
	if dir == "" {
		// Not downloaded yet (a fresh module cache).
		dl := exec.Command("go", "mod", "download", MPIOperatorModule)
		dl.Dir = root
		if out, err := dl.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go mod download %s: %v: %s", MPIOperatorModule, err, out)
		}
		return MPIJobCRD()
	}
	p := filepath.Join(dir, "manifests/base/kubeflow.org_mpijobs.yaml")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("MPIJob CRD: %w", err)
	}
	return p, nil
}

func skipOrFatal(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if testenv.RequireReal() {
		t.Fatalf("%s (BLASTFLEET_REQUIRE_REAL=1 forbids skipping)", msg)
	}
	t.Skip(msg)
}
