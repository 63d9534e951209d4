package hpc_e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/ledger"
)

// TestSiteAndClusterShareCampaign: a Slurm job submitted with "blastfleet
// hpc submit" (site hpc-a) and a cluster partition (site cloud) work one
// campaign at once. The result is BLAST's, byte for byte; the ledger's
// status, and "blastfleet hpc status", tell the two sites' work apart.
func TestSiteAndClusterShareCampaign(t *testing.T) {
	requireSlurm(t)
	t.Parallel()
	s := newSite(t, 2, "0.3")
	submitted := time.Now()
	id, _ := s.submit("hpc-a")
	first := s.waitSite("hpc-a", 2*time.Minute, "a committed chunk", func(ss ledger.SiteStatus) bool { return ss.ChunksCommitted > 0 })
	t.Logf("job %s: first chunk committed %v after hpc submit", id, time.Since(submitted).Round(100*time.Millisecond))
	p := s.startPartition("cloud-0")
	out := s.cli("hpc", "status", s.campaign)
	for _, want := range []string{"JOB", id, "hpc-a", "site hpc-a:"} {
		if !strings.Contains(out, want) {
			t.Errorf("hpc status lacks %q:\n%s", want, out)
		}
	}
	p.mustSucceed(t, 4*time.Minute)
	s.waitJobGone(id, 2*time.Minute)
	// Debian's Slurm has PMIx: the script's auto launcher picks srun,
	// for a rank per task (2) and the master.
	if logs := s.jobLogs(); !strings.Contains(logs, "3 ranks via srun (2 searching, and the master)") {
		t.Errorf("the job did not start its 3 ranks with srun --mpi=pmix:\n%s", logs)
	}
	status := s.verify()
	hpc, cloud := siteOf(status, "hpc-a"), siteOf(status, "cloud")
	t.Logf("site hpc-a: %d chunks, %.0f letters/s (first at %v); site cloud: %d chunks, %.0f letters/s",
		hpc.ChunksCommitted, hpc.LettersPerSecond, first.LastCommitted.Sub(submitted).Round(100*time.Millisecond), cloud.ChunksCommitted, cloud.LettersPerSecond)
	if hpc.ChunksCommitted == 0 || cloud.ChunksCommitted == 0 || hpc.ChunksCommitted+cloud.ChunksCommitted != status.Committed {
		t.Errorf("sites %+v: want both to have committed, %d chunks in all", status.Sites, status.Committed)
	}
}

// TestSiteCancelledMidRun: "blastfleet hpc cancel" mid-run is a stop: the
// job's chunks are recorded stopped and released at once, a cluster
// partition finishes the campaign, and no attempt counts as failed.
func TestSiteCancelledMidRun(t *testing.T) {
	requireSlurm(t)
	t.Parallel()
	s := newSite(t, 2, "0.5")
	id, _ := s.submit("hpc-a")
	s.waitSite("hpc-a", 2*time.Minute, "a committed chunk", func(ss ledger.SiteStatus) bool { return ss.ChunksCommitted > 0 && ss.Running > 0 })
	cancelled := time.Now()
	out := s.cli("hpc", "cancel", s.campaign, "--site", "hpc-a")
	if !strings.Contains(out, "cancelled jobs "+id) {
		t.Fatalf("hpc cancel printed %q", out)
	}
	s.waitJobGone(id, time.Minute)
	st := s.status()
	t.Logf("job %s left the queue %v after hpc cancel; %d chunks leased, %d stopped attempts",
		id, time.Since(cancelled).Round(100*time.Millisecond), st.Leased, st.StoppedAttempts)
	if st.StoppedAttempts == 0 || st.Leased != 0 {
		t.Errorf("after the cancel: %d stopped attempts, %d chunks still leased: want the job's chunks stopped and released\n%s",
			st.StoppedAttempts, st.Leased, s.jobLogs())
	}
	p := s.startPartition("cloud-0")
	p.mustSucceed(t, 4*time.Minute)
	s.verify()
}

// TestSiteTimeLimit: a job that reaches its Slurm time limit stops like a
// cancelled one: nothing counts as failed and the campaign completes
// elsewhere with BLAST's result.
func TestSiteTimeLimit(t *testing.T) {
	requireSlurm(t)
	t.Parallel()
	// 20 chunks of 8 s each: past the minute and Slurm's enforcement lag
	// (its time-limit check runs every 30 s).
	s := newSite(t, 2, "8")
	id, _ := s.submit("hpc-a", "--time", "1")
	started := time.Now()
	s.waitSite("hpc-a", 2*time.Minute, "a committed chunk", func(ss ledger.SiteStatus) bool { return ss.ChunksCommitted > 0 })
	s.waitJobGone(id, 3*time.Minute)
	st := s.status()
	t.Logf("job %s ended at its time limit %v after submit: %d of %d chunks committed, %d stopped attempts, %d leased",
		id, time.Since(started).Round(time.Second), st.Committed, st.Chunks, st.StoppedAttempts, st.Leased)
	if st.Complete {
		t.Fatalf("the campaign completed within the job's minute: make it longer")
	}
	if st.StoppedAttempts == 0 {
		t.Errorf("no stopped attempt after the time limit\n%s", s.jobLogs())
	}
	p := s.startPartition("cloud-0")
	p.mustSucceed(t, 4*time.Minute)
	s.verify()
}
