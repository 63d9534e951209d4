//go:build linux

package simulate

import (
	"context"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// cpuTime is the calling thread's CPU time: the process's would count the
// runtime's and other tests' goroutines, which under load is more than
// the sleep's allowance.
func cpuTime(t *testing.T) time.Duration {
	t.Helper()
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Busy burns a CPU for its time; Sleep does not, which is what lets many
// ranks share few cores.
func TestBusyUsesCPUSleepDoesNot(t *testing.T) {
	const d = 100 * time.Millisecond
	runtime.LockOSThread() // Wait runs on this goroutine, so on this thread
	defer runtime.UnlockOSThread()
	before := cpuTime(t)
	if err := Sleep.Wait(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	slept := cpuTime(t) - before
	before = cpuTime(t)
	if err := Busy.Wait(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	busy := cpuTime(t) - before
	// Loose bounds: on a shared machine the spinning thread gets only its
	// share of a core.
	if slept > d/20 || busy < d/5 {
		t.Fatalf("CPU used: sleeping %v, busy %v, for %v each", slept, busy, d)
	}
}
