package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The CLI reads what the engine writes (plans, ledgers, run records) but
// never runs a campaign's search: it must not link the engine or its
// machinery, so it stays small and builds without MPI. It may fetch
// shards (internal/cache) and run BLAST per query (internal/regen): that
// is how results regenerates a metadata campaign's output at home.
func TestCLIDoesNotLinkTheEngine(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, pkg := range []string{"engine", "scheduler", "simulate", "transport", "mpi"} {
		path := "github.com/blastfleet/blastfleet/internal/" + pkg
		for _, dep := range strings.Fields(string(out)) {
			if dep == path {
				t.Errorf("the CLI links %s", path)
			}
		}
	}
}
