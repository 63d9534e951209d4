package hpc_e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/cli/hpccmd"
)

// The script "blastfleet hpc submit" writes runs a searching rank per
// task of the allocation and the master as one rank more, under either
// launcher, on the test's real Slurm: 2 tasks give 3 ranks, rank 0 the
// master, which yields its shared core when idle.
func TestScriptRanks(t *testing.T) {
	s := requireSlurm(t)
	for _, launcher := range []string{"srun", "mpirun"} {
		t.Run(launcher, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			dir := t.TempDir()
			// In the engine's place: which rank of how many it is, as the
			// launcher told it (mpirun's variables, or srun's).
			engine := filepath.Join(dir, "engine")
			say := "#!/bin/sh\necho \"rank ${OMPI_COMM_WORLD_RANK:-$SLURM_PROCID} of ${OMPI_COMM_WORLD_SIZE:-$SLURM_STEP_NUM_TASKS} yield=$OMPI_MCA_mpi_yield_when_idle\"\n"
			if err := os.WriteFile(engine, []byte(say), 0o755); err != nil {
				t.Fatal(err)
			}
			j := hpccmd.Job{Campaign: "s3://campaigns/x", CampaignName: "x", Site: "hpc-a", Nodes: 1, TasksPerNode: 2, CPUsPerTask: 1,
				Engine: engine, Launcher: launcher, CacheDir: dir, Output: filepath.Join(dir, "job.log")}
			script, err := j.Script()
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "job.sbatch")
			if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := s.Command(ctx, "sbatch", "--parsable", "--wait", "--chdir", dir, path)
			// As root, mpirun wants these; nothing else of the MPI
			// settings, so the script's own are what the ranks get.
			cmd.Env = append(cmd.Env, "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1", "OMPI_MCA_btl_vader_single_copy_mechanism=none")
			out, err := cmd.CombinedOutput()
			log, _ := os.ReadFile(j.Output)
			if err != nil {
				t.Fatalf("sbatch: %v: %s\n%s", err, out, log)
			}
			for _, want := range []string{"rank 0 of 3 yield=1", "rank 1 of 3 yield=1", "rank 2 of 3 yield=1"} {
				if !strings.Contains(string(log), want) {
					t.Errorf("job log lacks %q:\n%s", want, log)
				}
			}
			if n := strings.Count(string(log), "rank "); n != 3 {
				t.Errorf("%d ranks ran, want 3:\n%s", n, log)
			}
		})
	}
}
