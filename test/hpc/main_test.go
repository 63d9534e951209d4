// Package hpc_e2e tests an HPC site joining campaigns: a real one-node
// Slurm (munged, slurmctld, slurmd of the tests' own), real MinIO, BLAST+
// and OpenMPI, and the CLI's "blastfleet hpc" as a site's user runs it.
package hpc_e2e

import (
	"fmt"
	"os"
	"testing"

	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// slurm is the package's cluster; nil when Slurm is not installed (the
// tests then skip, or fail under BLASTFLEET_REQUIRE_REAL=1).
var (
	slurm    *testenv.Slurm
	slurmErr error
)

func TestMain(m *testing.M) {
	code := func() int {
		dir, err := os.MkdirTemp("", "blastfleet-slurm-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		defer func() {
			if fixDir != "" {
				os.RemoveAll(fixDir)
			}
			testenv.RemoveBuiltBinaries()
		}()
		if testenv.SlurmTools() == "" {
			if slurm, slurmErr = testenv.StartSlurm(dir, 8); slurmErr == nil {
				defer slurm.Stop()
			}
		} else {
			slurmErr = fmt.Errorf("%s not installed", testenv.SlurmTools())
		}
		return m.Run()
	}()
	os.Exit(code)
}

func requireSlurm(t *testing.T) *testenv.Slurm {
	t.Helper()
	if slurm == nil {
		if os.Getenv("BLASTFLEET_REQUIRE_REAL") == "1" {
			t.Fatalf("Slurm: %v", slurmErr)
		}
		t.Skipf("Slurm: %v", slurmErr)
	}
	return slurm
}
