package main

import (
	"os"
	"path/filepath"
	"runtime/pprof"
	"testing"
)

// --cpu-profile writes a profile go tool pprof reads (one per rank under
// MPI), and an unwritable path is an error naming the flag.
func TestCPUProfile(t *testing.T) {
	dir := t.TempDir()
	stop, err := startCPUProfile(filepath.Join(dir, "cpu.pprof"), 2, true)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 1e6; i++ {
		_ = filepath.Join("a", "b")
	}
	stop()
	fi, err := os.Stat(filepath.Join(dir, "cpu.pprof.rank2"))
	if err != nil || fi.Size() == 0 {
		t.Fatalf("profile of rank 2: %v (%v)", fi, err)
	}
	if _, err := startCPUProfile(filepath.Join(dir, "missing", "cpu.pprof"), 0, false); err == nil {
		t.Error("an unwritable --cpu-profile path was accepted")
	}
	// Only one profile at a time: the flag's was stopped.
	if err := pprof.StartCPUProfile(nopWriter{}); err != nil {
		t.Errorf("the profile was not stopped: %v", err)
	}
	pprof.StopCPUProfile()
	stop, err = startCPUProfile("", 0, false)
	if err != nil {
		t.Fatal(err)
	}
	stop()
}

type nopWriter struct{}

func (nopWriter) Write(p []byte) (int, error) { return len(p), nil }
