package main

import "testing"

// TestLocalRank: each launcher's variable for a rank's index on its
// machine is read (Open MPI first, then Hydra's, then Slurm's).
func TestLocalRank(t *testing.T) {
	vars := []string{"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"}
	for _, v := range vars {
		t.Setenv(v, "")
	}
	if r := localRank(); r != 0 {
		t.Fatalf("localRank() = %d with no launcher, want 0", r)
	}
	for i, v := range vars {
		t.Run(v, func(t *testing.T) {
			t.Setenv(v, "3")
			if r := localRank(); r != 3 {
				t.Errorf("localRank() = %d with %s=3, want 3", r, v)
			}
			if i+1 < len(vars) {
				// The earlier launcher's variable wins over a later one's.
				t.Setenv(vars[i+1], "5")
				if r := localRank(); r != 3 {
					t.Errorf("localRank() = %d with %s=3 and %s=5, want 3", r, v, vars[i+1])
				}
			}
		})
	}
}
