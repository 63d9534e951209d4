package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// SlowBLASTPath writes, under dir, a blastn that sleeps delay seconds and
// then runs the real one, and returns a PATH that finds it first: campaign
// tests slow BLAST so a run lasts long enough to be hurt mid-way, without
// using more CPU on a small machine.
func SlowBLASTPath(dir, delay string) (string, error) {
	real, err := exec.LookPath("blastn")
	if err != nil {
		return "", err
	}
	slow := filepath.Join(dir, "slow-bin")
	if err := os.MkdirAll(slow, 0o755); err != nil {
		return "", err
	}
	script := fmt.Sprintf("#!/bin/sh\nsleep %s\nexec %s \"$@\"\n", delay, real)
	if err := os.WriteFile(filepath.Join(slow, "blastn"), []byte(script), 0o755); err != nil {
		return "", err
	}
	return slow + string(os.PathListSeparator) + os.Getenv("PATH"), nil
}
