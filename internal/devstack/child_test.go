package devstack

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestChildRestartsAndStops: a supervised process that dies is started
// again; stop ends it for good.
func TestChildRestartsAndStops(t *testing.T) {
	dir := t.TempDir()
	ready := filepath.Join(dir, "ready")
	c := &child{
		name: "sleeper", path: "/bin/sh", args: []string{"-c", "touch " + ready + "; exec sleep 60"},
		logPath: filepath.Join(dir, "sleeper.log"),
		ready: func(context.Context) error {
			_, err := os.Stat(ready)
			return err
		},
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := c.startReady(ctx, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	first := c.PID()
	t.Cleanup(func() { c.stop(time.Second) })
	go c.supervise(ctx, 10*time.Second, func(f string, a ...any) { t.Logf(f, a...) })

	os.Remove(ready)
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		p, restarts, last := c.snapshot()
		if p.PID != 0 && p.PID != first && restarts == 1 {
			if !strings.Contains(last, "killed") {
				t.Errorf("last exit %q, want the kill", last)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not restarted: pid %d (first %d), restarts %d", p.PID, first, restarts)
		}
		time.Sleep(50 * time.Millisecond)
	}
	second := c.PID()
	c.stop(2 * time.Second)
	if (Proc{PID: second, Start: procOf(second).Start}).alive() {
		t.Fatalf("pid %d alive after stop", second)
	}
	time.Sleep(1500 * time.Millisecond) // longer than the restart backoff
	if p, _, _ := c.snapshot(); p.PID != 0 {
		t.Errorf("restarted after stop: pid %d", p.PID)
	}
	if b, _ := os.ReadFile(c.logPath); strings.Count(string(b), "--- devstack: starting sleeper") != 2 {
		t.Errorf("log:\n%s", b)
	}
}

// TestStartReadyReportsEarlyExit: a process that exits before it is
// ready fails the start with the end of its log.
func TestStartReadyReportsEarlyExit(t *testing.T) {
	dir := t.TempDir()
	c := &child{name: "broken", path: "/bin/sh", args: []string{"-c", "echo bad flag >&2; exit 3"},
		logPath: filepath.Join(dir, "broken.log"), ready: func(context.Context) error { return os.ErrNotExist }}
	err := c.startReady(context.Background(), 10*time.Second)
	if err == nil || !strings.Contains(err.Error(), "exited with code 3") || !strings.Contains(err.Error(), "bad flag") {
		t.Fatalf("err = %v", err)
	}
}
