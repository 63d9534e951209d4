package cli

import (
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/test/support/kubetest"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// TestReadmeCommands runs the kubectl commands of README's "Install on a
// cluster" against a real API server with the CRDs, from the repository
// root as the README implies: the credentials Secret is made and
// labelled, the samples must apply with the README's own command (they
// once said apply -f on a kustomization), and kubectl get blastfleet must
// list what they created. The helm line is tested in test/install, the
// local stack's block by TestReadmeSamplesLocalStack.
func TestReadmeCommands(t *testing.T) {
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	cmds := testenv.ReadmeProgram(t, root, "Install on a cluster", "kubectl")
	var applied bool
	for _, c := range cmds {
		applied = applied || (c[0] == "apply" && strings.Contains(strings.Join(c, " "), "config/samples"))
	}
	if !applied {
		t.Fatalf("README's install block applies no config/samples: %q", cmds)
	}

	env := kubetest.Start(t)
	p := newPlugin(t, writeKubeconfig(t, env.Config))
	p.dir = root
	var out string
	for _, c := range cmds {
		stdout, stderr, code := p.kubectl(c...)
		if code != 0 {
			t.Fatalf("kubectl %s: exit %d\n%s%s", strings.Join(c, " "), code, stdout, stderr)
		}
		out += stdout
	}
	for _, want := range []string{
		"secret/minio-credentials created",
		"secret/minio-credentials labeled",
		"blastdatabase.blastfleet.io/sample-proteins created",
		"searchcampaign.blastfleet.io/sample-search created",
		"sample-proteins", "sample-search", // kubectl get blastfleet
	} {
		if !strings.Contains(out, want) {
			t.Errorf("README's commands printed no %q:\n%s", want, out)
		}
	}
}
