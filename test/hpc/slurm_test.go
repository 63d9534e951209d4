package hpc_e2e

import (
	"context"
	"strings"
	"testing"
	"time"
)

// The test's Slurm runs a two-task job to its end.
func TestSlurmRunsJobs(t *testing.T) {
	s := requireSlurm(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	out, err := s.Command(ctx, "sbatch", "--parsable", "--wait", "--ntasks=2", "--chdir", dir, "--output", dir+"/out",
		"--wrap", "srun bash -c 'echo task $SLURM_PROCID'").CombinedOutput()
	if err != nil {
		t.Fatalf("sbatch: %v: %s", err, out)
	}
	log, err := s.Command(ctx, "cat", dir+"/out").Output()
	if err != nil || !strings.Contains(string(log), "task 0") || !strings.Contains(string(log), "task 1") {
		t.Fatalf("job output %q (%v)", log, err)
	}
}
