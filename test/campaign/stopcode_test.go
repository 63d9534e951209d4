package campaign_e2e

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/ledger"
)

// TestInProcessStop: the engine run without mpirun (an Argo step: master
// and workers in one process) records a SIGTERM (a pod deletion) as a
// stop, as under MPI: its chunks released, no failed attempt; and it
// exits non-zero, so Argo's retryStrategy runs the step again instead of
// counting it done.
func TestInProcessStop(t *testing.T) {
	e := newEnv(t)
	loc := "s3://campaigns/" + campaignName(t)
	pol := testPolicy
	pol.MaxAttempts = 1
	st := e.planPolicy(t, loc, 1, pol)
	args := append([]string{"--campaign", loc, "--partition-id", "argo-step", "--workers", "2",
		"--cache-dir", filepath.Join(t.TempDir(), "cache")}, engineArgs...)
	cmd := exec.Command(bins(t).engine, args...)
	cmd.Env = append(os.Environ(), getFixture(t).slowPath)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	// A file, not a buffer: the engine writes it while the test waits.
	logf := filepath.Join(t.TempDir(), "engine.log")
	out, err := os.Create(logf)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd.Stderr = out
	stderr := func() string { b, _ := os.ReadFile(logf); return string(b) }
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// Leased and its attempt counted: a SIGTERM between the two gives
	// the lease back with no attempt to mark stopped.
	waitFor(t, 30*time.Second, "a chunk leased", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s, err := ledger.ReadStatus(ctx, st)
		return err == nil && s.Leased > 0 && s.Attempts > 0
	})
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("the engine did not exit 30 s after SIGTERM:\n%s", stderr())
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if code == 0 {
		t.Errorf("exit code 0 after SIGTERM: Argo would count the step done:\n%s", stderr())
	}
	t.Logf("exit code %d after SIGTERM:\n%s", code, stderr())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := ledger.ReadStatus(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if s.StoppedAttempts == 0 || s.Leased != 0 {
		t.Errorf("ledger after SIGTERM: %d stopped attempts, %d leased; want the held chunks stopped and released", s.StoppedAttempts, s.Leased)
	}
	if f := s.FailedAttempts; f.ExitCode+f.Signal+f.Error != 0 {
		t.Errorf("failed attempts %+v: a stop is not a failure", f)
	}
}
