package testenv

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// RequireReal reports whether missing real servers must fail tests.
func RequireReal() bool { return os.Getenv("BLASTFLEET_REQUIRE_REAL") == "1" }

// skipOrFatal skips the test, or fails it when RequireReal.
func skipOrFatal(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if RequireReal() {
		t.Fatalf("%s (BLASTFLEET_REQUIRE_REAL=1 forbids skipping)", msg)
	}
	t.Skip(msg)
}

// RepoRoot walks up from the working directory to the directory holding
// go.mod.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// findBinary looks for a server binary: the env variable envVar, then the
// repository's install script (which builds it once per machine and prints
// its path), then PATH. The error lists every place it looked.
func findBinary(envVar, script, name string) (string, error) {
	if p := os.Getenv(envVar); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%s: %w", envVar, p, err)
		}
		return p, nil
	}
	var tried []string
	if root, err := RepoRoot(); err != nil {
		tried = append(tried, err.Error())
	} else if p, err := runInstallScript(filepath.Join(root, script)); err != nil {
		tried = append(tried, err.Error())
	} else {
		return p, nil
	}
	p, err := exec.LookPath(name)
	if err == nil {
		return p, nil
	}
	tried = append(tried, err.Error())
	return "", fmt.Errorf("no %s binary (set %s): %s", name, envVar, strings.Join(tried, "; "))
}

func runInstallScript(script string) (string, error) {
	if _, err := os.Stat(script); err != nil {
		return "", err
	}
	cmd := exec.Command("bash", script)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s: %w: %s", script, err, strings.TrimSpace(stderr.String()))
	}
	p := strings.TrimSpace(string(out))
	if i := strings.LastIndexByte(p, '\n'); i >= 0 {
		p = p[i+1:] // the path is the last line
	}
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("%s printed %q: %w", script, p, err)
	}
	return p, nil
}

// SkipOrFail skips the test, or fails it under BLASTFLEET_REQUIRE_REAL=1,
// saying what is missing.
func SkipOrFail(t testing.TB, format string, args ...any) {
	t.Helper()
	skipOrFatal(t, format, args...)
}
