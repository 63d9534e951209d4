// Package controlplane runs make bench-control-plane's harness small: 3
// campaigns x 8 partitions on 5 kwok nodes, with the real API server,
// scheduler, Job controller and MPI operator, and the restarts.
package controlplane

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/test/support/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// exitMissing is the bench's exit code when a program it runs cannot be
// found or built (bench/controlplane/main.go).
const exitMissing = 3

// TestBenchControlPlaneSmall runs the bench at 3 campaigns: every one
// Complete, each partition's MPIJob created once through an operator
// restart and an API server restart, and the summary line printed.
func TestBenchControlPlaneSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a whole control plane")
	}
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bins := testenv.BuiltBinaries(t)
	bench := filepath.Join(t.TempDir(), "bench-control-plane")
	build := exec.Command("go", "build", "-o", bench, "./bench/controlplane")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the bench: %v\n%s", err, out)
	}
	dir := t.TempDir()
	cmd := exec.Command(bench, "-campaigns", "3", "-nodes", "5", "-hold", "1s", "-timeout", "3m", "-dir", dir)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "BLASTFLEET_MANAGER="+bins.Manager)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == exitMissing {
		testenv.SkipOrFail(t, "the bench's programs are missing: %s", lastLine(stderr.String()))
	}
	if err != nil {
		t.Fatalf("bench: %v\nstdout:\n%s\nstderr:\n%s\n%s", err, out, stderr.String(), logTails(dir))
	}
	report := string(out)
	t.Logf("report:\n%s", report)
	want := regexp.MustCompile(`(?m)^campaigns 3 partitions 24 reconcile p99 \d+ ms operator heap \d+ MiB\n\z`)
	if !want.MatchString(report) {
		t.Errorf("the report does not end with the summary line:\n%s", report)
	}
	// The operator's read counters, scraped and printed one line each.
	for _, s := range []string{"restarts: operator at ", "; kube-apiserver at ", "MPIJobs: each partition's once",
		"ledger poller reads,", "outcome ok", "reconciles' own store reads,", "cause no_poller_read", "cause poller_read_failed"} {
		if !strings.Contains(report, s) {
			t.Errorf("the report lacks %q:\n%s", s, report)
		}
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// logTails is the end of each component's log, for a failed run.
func logTails(dir string) string {
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	var b strings.Builder
	for _, l := range logs {
		data, _ := os.ReadFile(l)
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		b.WriteString("== " + filepath.Base(l) + "\n" + strings.Join(lines[max(0, len(lines)-15):], "\n") + "\n")
	}
	return b.String()
}
