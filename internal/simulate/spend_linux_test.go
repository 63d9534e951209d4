//go:build unix

package simulate

import (
	"context"
	"syscall"
	"testing"
	"time"
)

func cpuTime(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Busy burns a CPU for its time; Sleep does not, which is what lets many
// ranks share few cores.
func TestBusyUsesCPUSleepDoesNot(t *testing.T) {
	const d = 100 * time.Millisecond
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
