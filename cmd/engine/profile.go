package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startCPUProfile writes the engine's own CPU profile (BLAST+'s
// processes are not in it) to path, one file per rank under MPI
// (path.rankN), until the returned stop; "" profiles nothing.
func startCPUProfile(path string, rank int, mpi bool) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	if mpi {
		path = fmt.Sprintf("%s.rank%d", path, rank)
	}
	f, err := os.Create(path)
	if err != nil {
		return func() {}, fmt.Errorf("--cpu-profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return func() {}, fmt.Errorf("--cpu-profile %s: %w", path, err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
