package main

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/blastfleet/blastfleet/"

// deps is what the package in dir links, from go list.
func deps(t *testing.T, dir string) map[string]bool {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", dir).Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	linked := map[string]bool{}
	for _, dep := range strings.Fields(string(out)) {
		linked[dep] = true
	}
	return linked
}

// notLinked fails for every package of pkgs (paths below the module) that
// dir's binary links.
func notLinked(t *testing.T, dir string, pkgs ...string) {
	t.Helper()
	linked := deps(t, dir)
	for _, pkg := range pkgs {
		if linked[module+pkg] {
			t.Errorf("%s links %s", dir, module+pkg)
		}
	}
}

// The CLI reads what the engine writes (plans, ledgers, run records) but
// never runs a campaign's search: it must not link the engine or its
// machinery, so it stays small and builds without MPI. It may fetch
// shards (internal/storage/cache) and run BLAST per query
// (internal/engine/regen): that is how results regenerates a metadata
// campaign's output at home.
func TestCLIDoesNotLinkTheEngine(t *testing.T) {
	notLinked(t, ".", "internal/engine", "internal/engine/scheduler", "internal/engine/simulate",
		"internal/engine/transport", "internal/engine/mpi")
}

// Neither the CLI nor the operator links the local stack, its stand-in
// kubelet or a test harness: blastfleet dev runs blastfleet-dev.
var devAndTestOnly = []string{"internal/devstack", "internal/devstack/localrunner", "internal/cli/devcmd",
	"test/support/testenv", "test/support/testenv/testkit", "test/support/kubetest", "test/support/dashcheck",
	"test/support/faultproxy", "test/support/synth", "test/support/refsearch", "internal/bio/blastdb/blastdbtest",
	"internal/cli/clitest"}

func TestCLIAndOperatorLinkNoStandIn(t *testing.T) {
	notLinked(t, ".", devAndTestOnly...)
	notLinked(t, "../manager", devAndTestOnly...)
	if !deps(t, "../blastfleet-dev")[module+"internal/devstack"] {
		t.Error("blastfleet-dev does not link the local stack: this test's package names are stale")
	}
}
