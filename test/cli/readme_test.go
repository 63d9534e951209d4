package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/test/support/kubetest"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// readmeCommands returns the kubectl commands of README.md's code block
// under the heading, as written there (continuations joined, trailing
// comments dropped), so the test runs what users copy and cannot drift.
func readmeCommands(t *testing.T, root, heading string) [][]string {
	t.Helper()
	return readmeProgram(t, root, heading, "kubectl")
}

// readmeProgram is readmeCommands for the lines that run program.
func readmeProgram(t *testing.T, root, heading, program string) [][]string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(raw), "\n## "+heading+"\n")
	if !ok {
		t.Fatalf("README.md has no section %q", heading)
	}
	block := regexp.MustCompile("(?s)```sh\n(.*?)```").FindStringSubmatch(section)
	if block == nil {
		t.Fatalf("README.md section %q has no sh block", heading)
	}
	var cmds [][]string
	for _, line := range strings.Split(strings.ReplaceAll(block[1], "\\\n", " "), "\n") {
		line, _, _ = strings.Cut(line, "#")
		fields := strings.Fields(line)
		if len(fields) > 0 && fields[0] == program {
			cmds = append(cmds, fields[1:])
		}
	}
	return cmds
}

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
	cmds := readmeCommands(t, root, "Install on a cluster")
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
