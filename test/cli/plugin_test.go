// Package cli tests the built blastfleet binary the way users run it: as
// "kubectl blastfleet" (kubectl finds kubectl-blastfleet on PATH) against
// a real API server, with the kubeconfig from $KUBECONFIG. The commands'
// behaviour in detail is tested in-process in the packages of internal/cli.
package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/test/support/kubetest"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// plugin is a PATH directory holding kubectl-blastfleet, and the
// environment kubectl runs it with.
type plugin struct {
	t   *testing.T
	env []string
	// dir, if set, is where kubectl runs (relative paths in its args).
	dir string
}

func newPlugin(t *testing.T, kubeconfig string) *plugin {
	t.Helper()
	testenv.RequireTools(t, "kubectl")
	dir := t.TempDir()
	installCLI(t, filepath.Join(dir, "kubectl-blastfleet"))
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	// kubectl's completion of the plugin's words, as make build installs it.
	if err := os.Symlink(filepath.Join(root, "hack", "kubectl_complete-blastfleet"), filepath.Join(dir, "kubectl_complete-blastfleet")); err != nil {
		t.Fatal(err)
	}
	return &plugin{t: t, env: append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"), "KUBECONFIG="+kubeconfig)}
}

// installCLI puts the CLI at path: $BLASTFLEET_CLI (make test builds it,
// and blastfleet-dev beside it) or fresh CGO_ENABLED=0 builds of both, as
// released.
func installCLI(t *testing.T, path string) {
	t.Helper()
	if bin := os.Getenv("BLASTFLEET_CLI"); bin != "" {
		if err := os.Symlink(bin, path); err != nil {
			t.Fatal(err)
		}
		return
	}
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	for pkg, out := range map[string]string{"./cmd/blastfleet": path, "./cmd/blastfleet-dev": filepath.Join(filepath.Dir(path), "blastfleet-dev")} {
		cmd := exec.Command("go", "build", "-o", out, pkg)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if log, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, log)
		}
	}
}

// kubectl runs kubectl with args and returns its output and exit code.
func (p *plugin) kubectl(args ...string) (stdout, stderr string, code int) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "kubectl", args...)
	cmd.Env = p.env
	cmd.Dir = p.dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		p.t.Fatalf("kubectl %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

func writeKubeconfig(t *testing.T, cfg *rest.Config) string {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["envtest"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["envtest"] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData}
	kc.Contexts["envtest"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "envtest", Namespace: "default"}
	kc.CurrentContext = "envtest"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestKubectlPlugin(t *testing.T) {
	env := kubetest.Start(t)
	p := newPlugin(t, writeKubeconfig(t, env.Config))
	ctx := context.Background()
	if err := env.Client.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "minio-credentials", Namespace: "default"},
		StringData: map[string]string{"AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s"}}); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Create(ctx, &v1alpha1.BlastDatabase{
		ObjectMeta: metav1.ObjectMeta{Name: "sprot", Namespace: "default"},
		Spec: v1alpha1.BlastDatabaseSpec{Source: v1alpha1.ObjectReference{Key: "sprot.fa"}, Type: v1alpha1.DatabaseProtein,
			Shards: v1alpha1.Sharding{Count: ptr.To[int32](2)},
			Storage: v1alpha1.ObjectStorage{Endpoint: "http://minio.minio.svc:9000", Bucket: "blastfleet", Prefix: "databases",
				CredentialsSecretRef: &v1alpha1.CredentialsSecretRef{Name: "minio-credentials"}}},
	}); err != nil {
		t.Fatal(err)
	}

	out, _, code := p.kubectl("blastfleet", "--help")
	if code != 0 || !strings.Contains(out, "kubectl blastfleet [command]") || !strings.Contains(out, "Campaigns on Kubernetes") {
		t.Errorf("kubectl blastfleet --help: exit %d\n%s", code, out)
	}

	out, errOut, code := p.kubectl("blastfleet", "submit", "--name", "plug", "--database", "sprot", "--queries", "s3://blastfleet/q.fa", "--program", "blastp")
	if code != 0 || out != "searchcampaign.blastfleet.io/plug created\n" || !strings.Contains(errOut, "kubectl blastfleet status plug --watch") {
		t.Errorf("submit: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// kubectl itself sees what the plugin created.
	if out, errOut, code := p.kubectl("get", "bsc", "plug", "-o", "jsonpath={.spec.output.endpoint} {.spec.partitions.count}"); code != 0 || out != "http://minio.minio.svc:9000 1" {
		t.Errorf("kubectl get bsc: exit %d %q %q", code, out, errOut)
	}

	// The API server's refusal, as it is, and exit status 1.
	_, errOut, code = p.kubectl("blastfleet", "submit", "--name", "bad", "--database", "sprot", "--queries", "s3://blastfleet/q.fa", "--program", "blastp", "--partitions", "0")
	if code != 1 || !strings.HasPrefix(errOut, `blastfleet: SearchCampaign.blastfleet.io "bad" is invalid: spec.partitions.count: Invalid value: 0`) {
		t.Errorf("bad submit: exit %d, stderr %q", code, errOut)
	}

	out, _, code = p.kubectl("blastfleet", "get")
	if code != 0 || !strings.HasPrefix(out, "NAME ") || !strings.Contains(out, "\nplug ") {
		t.Errorf("get: exit %d\n%s", code, out)
	}
	// "kubectl blastfleet status <TAB>": kubectl asks kubectl_complete-blastfleet,
	// which lists the namespace's campaigns.
	out, errOut, code = p.kubectl("__complete", "blastfleet", "status", "pl")
	if code != 0 || !strings.HasPrefix(out, "plug") || !strings.Contains(out, "\n:4\n") {
		t.Errorf("kubectl __complete blastfleet status pl: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if out, _, _ := p.kubectl("__complete", "blastfleet", "sta"); !strings.Contains(out, "status\t") {
		t.Errorf("kubectl __complete blastfleet sta: %q", out)
	}
	if out, _, code := p.kubectl("blastfleet", "suspend", "plug"); code != 0 || out != "searchcampaign.blastfleet.io/plug suspended\n" {
		t.Errorf("suspend: exit %d %q", code, out)
	}

	// No kubeconfig: say how to get one. (The last KUBECONFIG wins.)
	p.env = append(p.env, "KUBECONFIG="+filepath.Join(t.TempDir(), "missing"))
	_, errOut, code = p.kubectl("blastfleet", "get")
	if code != 1 || !strings.Contains(errOut, "no kubeconfig found") || !strings.Contains(errOut, `"kubectl blastfleet dev up"`) {
		t.Errorf("no kubeconfig: exit %d, stderr %q", code, errOut)
	}
}

// "kubectl blastfleet dev" runs blastfleet-dev, the local stack's own
// program, with every flag as given, its exit code, and its suggestions
// naming the command the user ran.
func TestDevRunsItsOwnProgram(t *testing.T) {
	p := newPlugin(t, filepath.Join(t.TempDir(), "kubeconfig"))
	empty := t.TempDir()
	_, errOut, code := p.kubectl("blastfleet", "dev", "status", "--dir", empty)
	if code != 1 || !strings.Contains(errOut, "no local stack in "+empty) || !strings.Contains(errOut, "kubectl blastfleet dev up --dir") {
		t.Errorf("dev status on no stack: exit %d, stderr %q", code, errOut)
	}
	out, _, code := p.kubectl("blastfleet", "dev", "--help")
	if code != 0 || !strings.Contains(out, "blastfleet-dev [command]") || !strings.Contains(out, "up ") {
		t.Errorf("dev --help: exit %d\n%s", code, out)
	}
}
