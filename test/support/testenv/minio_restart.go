package testenv

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Stop kills this MinIO server (SIGKILL, as a crash) and waits until it is
// gone; its data directory stays. The server is found in /proc as a child
// of the test process serving m.Host, so Stop works on a server started by
// StartMinIO or Start. On systems without /proc the test is skipped.
func (m *MinIO) Stop(t testing.TB) {
	t.Helper()
	pids, err := m.serverPIDs()
	if err != nil {
		t.Skipf("stopping MinIO needs /proc: %v", err)
	}
	if len(pids) == 0 {
		t.Fatalf("no MinIO server process serving %s found", m.Host)
	}
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if left, _ := m.serverPIDs(); len(left) == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("MinIO at %s still running 10s after SIGKILL", m.Host)
}

// Start starts a MinIO server again on the same address, data directory
// and credentials after Stop, and waits until it is live. The port may be
// briefly unavailable after the kill, so binding is retried for a while.
// The new server is stopped when the test ends.
func (m *MinIO) Start(t testing.TB) {
	t.Helper()
	bin, err := MinIOBinary()
	if err != nil {
		skipOrFatal(t, "MinIO not available: %v", err)
	}
	var lastErr error
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if lastErr = m.startAt(t, bin, "MinIO (restarted)"); lastErr == nil {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("restarting MinIO on %s: %v", m.Host, lastErr)
}

// Restart is Stop then Start, with down between them.
func (m *MinIO) Restart(t testing.TB, down time.Duration) {
	t.Helper()
	m.Stop(t)
	time.Sleep(down)
	m.Start(t)
}

// serverPIDs lists this process's children that are MinIO servers on
// m.Host.
func (m *MinIO) serverPIDs() ([]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	self := os.Getpid()
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 || f[0] == "Z" || f[1] != strconv.Itoa(self) {
			continue
		}
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			continue
		}
		args := strings.Split(string(cmdline), "\x00")
		for j := 0; j+1 < len(args); j++ {
			if args[j] == "--address" && args[j+1] == m.Host {
				out = append(out, pid)
				break
			}
		}
	}
	return out, nil
}
