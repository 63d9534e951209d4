package kubecmd

import (
	"bytes"
	"strings"
	"testing"
)

// testCompletion: cobra's __complete (what the shell scripts and
// kubectl_complete-blastfleet call) offers the namespace's campaigns,
// once each, and the kubeconfig's contexts.
func testCompletion(t *testing.T, f *kubeFixture) {
	f.campaign("default", "comp-alpha")
	f.campaign("default", "comp-beta")
	f.campaign("default", "other")
	complete := func(args ...string) []string {
		t.Helper()
		cmd := testCLI("blastfleet")
		var out, errb bytes.Buffer
		cmd.SetOut(&out)
		cmd.SetErr(&errb)
		// The word being completed comes last.
		cmd.SetArgs(append([]string{"__complete", args[0], "--kubeconfig", f.kubeconfig}, args[1:]...))
		if err := cmd.Execute(); err != nil {
			t.Fatalf("__complete %v: %v\n%s", args, err, errb.String())
		}
		var words []string
		for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			if !strings.HasPrefix(l, ":") { // ":4" is the directive
				words = append(words, strings.SplitN(l, "\t", 2)[0])
			}
		}
		return words
	}
	if got := complete("status", "comp-"); strings.Join(got, " ") != "comp-alpha comp-beta" {
		t.Errorf("status comp-<TAB>: %q", got)
	}
	// status takes one name: none after it.
	if got := complete("status", "comp-alpha", ""); len(got) != 0 {
		t.Errorf("status comp-alpha <TAB>: %q", got)
	}
	// delete takes several, each once.
	if got := complete("delete", "comp-alpha", "comp"); strings.Join(got, " ") != "comp-beta" {
		t.Errorf("delete comp-alpha comp<TAB>: %q", got)
	}
	if got := complete("get", "--context", ""); strings.Join(got, " ") != "envtest" {
		t.Errorf("get --context <TAB>: %q", got)
	}
	if got := complete("get", "-n", "defa"); !strings.Contains(strings.Join(got, " "), "default") {
		t.Errorf("get -n defa<TAB>: %q", got)
	}
}

// testImpersonation: --as and --as-group reach the API server, which
// judges the impersonated user (who has no rights here),
// --request-timeout bounds each request, and --server overrides the
// kubeconfig's server.
func testImpersonation(t *testing.T, f *kubeFixture) {
	f.campaign("default", "imp")
	_, _, err := f.cli("get", "imp", "--as", "alice", "--as-group", "lab", "--as-group", "readers")
	if err == nil || !strings.Contains(err.Error(), `User "alice" cannot get resource "searchcampaigns"`) {
		t.Errorf("get --as alice: want the server's refusal naming alice, got %v", err)
	}
	if out := f.mustCLI("get", "imp", "--as", "admin", "--as-group", "system:masters", "-o", "name"); out != "searchcampaign.blastfleet.io/imp\n" {
		t.Errorf("get --as admin --as-group system:masters: %q", out)
	}
	if _, _, err := f.cli("get", "imp", "--request-timeout", "1ns"); err == nil || !strings.Contains(err.Error(), "deadline exceeded") {
		t.Errorf("get --request-timeout 1ns: want a timeout, got %v", err)
	}
	if _, _, err := f.cli("get", "imp", "--request-timeout", "soon"); err == nil || !strings.Contains(err.Error(), `--request-timeout "soon"`) {
		t.Errorf("get --request-timeout soon: want an error naming the value, got %v", err)
	}
	if out := f.mustCLI("status", "imp", "--request-timeout", "30s"); !strings.Contains(out, "imp") {
		t.Errorf("status --request-timeout 30s:\n%s", out)
	}
	// The rest of kubectl's connection flags (cli-runtime's): --server
	// overrides the kubeconfig's.
	if _, _, err := f.cli("get", "imp", "--server", "https://127.0.0.1:1"); err == nil || !strings.Contains(err.Error(), "cannot reach the API server at https://127.0.0.1:1") {
		t.Errorf("get --server https://127.0.0.1:1: %v", err)
	}
}
