package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
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

// FakeBLAST puts first on PATH, for the test, a blastn that runs the sh
// script: a BLAST+ that refuses, fails, hangs or reports another version.
func FakeBLAST(t testing.TB, script string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "blastn"), []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}
