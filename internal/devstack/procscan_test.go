package devstack

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestStragglers finds processes by the marker in their environment,
// descendants included, and killAll ends them.
func TestStragglers(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("/bin/sh", "-c", "sleep 60 & sleep 60; wait")
	cmd.Env = append(os.Environ(), MarkerEnv+"="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-done })

	var found []Straggler
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if found = Stragglers(dir); len(found) == 3 { // sh and its two sleeps
			break
		}
	}
	if len(found) != 3 {
		t.Fatalf("found %v, want sh and two sleeps", found)
	}
	if other := Stragglers(dir + "-other"); len(other) != 0 {
		t.Fatalf("another stack's marker matched: %v", other)
	}
	if left := killAll(found, time.Second); len(left) != 0 {
		t.Fatalf("survived: %v", left)
	}
	if left := Stragglers(dir); len(left) != 0 {
		t.Fatalf("still there: %v", left)
	}
}
