package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A rank's child that still runs the engine's executable with the rank's
// environment (as between fork and exec) must not be taken for the rank:
// a fault test once SIGKILLed such a child, and the rank lived on.
func TestEngineRanksPicksTheRankNotItsChild(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	engine := filepath.Join(t.TempDir(), "blastfleet-engine")
	b, err := os.ReadFile(sh)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(engine, b, 0o755); err != nil {
		t.Fatal(err)
	}
	// The outer shell (the "rank") starts an inner one of the same
	// executable and environment, which outlives any exec shortcut.
	cmd := exec.Command(engine, "-c", engine+` -c "sleep 30; :" & wait`)
	cmd.Env = append(os.Environ(), "OMPI_COMM_WORLD_RANK=2")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { SignalTree(cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })

	// Wait for the inner one, a descendant of the outer.
	deadline := time.Now().Add(10 * time.Second)
	for {
		n := 0
		for _, p := range Descendants(cmd.Process.Pid) {
			if exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", p.PID)); filepath.Base(exe) == "blastfleet-engine" {
				n++
			}
		}
		if n >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the inner engine process never started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	got, ok := EngineRanks(os.Getpid())[2]
	if !ok || got.PID != cmd.Process.Pid {
		t.Errorf("rank 2 is pid %d (found %v), want the outer process %d", got.PID, ok, cmd.Process.Pid)
	}
}
