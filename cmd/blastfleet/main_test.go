package main

import (
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/cli/clitest"
)

// testCLI is the whole command tree, as main runs it.
var testCLI = clitest.NewRoot(newRootCmd)

// run runs args on a fresh testCLI.
var run = testCLI.Run

func TestVersion(t *testing.T) {
	out, _, err := run(t, "blastfleet", "version")
	if err != nil || !strings.HasPrefix(out, "blastfleet ") {
		t.Errorf("version: %q, %v", out, err)
	}
}

func TestKubectlPluginName(t *testing.T) {
	out, _, err := run(t, "kubectl-blastfleet", "--help")
	if err != nil || !strings.Contains(out, "kubectl blastfleet [command]") {
		t.Errorf("help as kubectl plugin: %v\n%s", err, out)
	}
}
