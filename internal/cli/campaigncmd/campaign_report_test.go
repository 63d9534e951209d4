package campaigncmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/cli/clitest"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/ledger/ledgertest"
	"github.com/blastfleet/blastfleet/internal/storage/runrecord"
)

var wroteLine = regexp.MustCompile(`^wrote (.+) \((\d+) KiB\): (.+)\n$`)

func TestCampaignReport(t *testing.T) {
	ctx := context.Background()
	loc, st := fakeCampaign(t)
	out := filepath.Join(t.TempDir(), "report.html")

	// Planned, nothing run: a report all the same.
	stdout, stderr, err := run(t, "blastfleet", "campaign", "report", "--campaign", loc, "--output-file", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	m := wroteLine.FindStringSubmatch(stderr)
	if stdout != "" || m == nil || m[1] != out || m[3] != "0 runs, 0 ranks, 0 failures" {
		t.Errorf("stdout %q stderr %q", stdout, stderr)
	}
	// On a terminal, a spinner while the ledger is read.
	if _, stderr, err := testCLI.RunOnTerminal(t, "blastfleet", "campaign", "report", "--campaign", loc, "--output-file", out); err != nil ||
		!strings.Contains(stderr, "reading the campaign's ledger") || !strings.Contains(stderr, "\r") {
		t.Errorf("report on a terminal: %v, stderr %q", err, stderr)
	}
	page, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(page), "No timeline yet") {
		t.Errorf("report %s: %v", out, err)
	}
	if fi, err := os.Stat(out); err != nil || fmt.Sprint((fi.Size()+1023)/1024) != m[2] {
		t.Errorf("said %s KiB, the file has %v bytes (%v)", m[2], fi.Size(), err)
	}

	// One run, a failing first chunk: every failed attempt and the failed
	// query count. The location may be the argument, the page go to stdout.
	ledgertest.Drive(t, st, "slurm-1-abcd", func(r ledger.Range) *ledger.FailureReason {
		if r.First != 0 {
			return nil
		}
		return &ledger.FailureReason{Message: "blastn failed", ExitCode: 99, StderrTail: "injected"}
	})
	if err := runrecord.WriteRun(ctx, st, clitest.RunRecord("slurm-1-abcd", "")); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err = run(t, "blastfleet", "campaign", "report", loc, "--output-file", "-")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	// [0,3) fails 3 times, splits; [0,1) fails 3 times, [1,3) commits.
	if !strings.HasPrefix(stdout, "<!DOCTYPE html>") || !strings.Contains(stdout, `<svg id="timeline"`) ||
		strings.Count(stdout, `<rect class="iv `) != 4 || !strings.Contains(stdout, "slurm-1-abcd rank 1 (worker)") {
		t.Errorf("page on stdout:\n%.2000s", stdout)
	}
	if !strings.Contains(stderr, "wrote the report to standard output (") || !strings.HasSuffix(stderr, "KiB): 1 run, 2 ranks, 7 failures\n") {
		t.Errorf("stderr %q", stderr)
	}

	// The default file is named after the location, in the working directory.
	t.Chdir(t.TempDir())
	if _, stderr, err = run(t, "blastfleet", "campaign", "report", "--campaign", loc); err != nil || !strings.HasPrefix(stderr, "wrote campaign-report.html (") {
		t.Errorf("default -o: %v, %q", err, stderr)
	}
	if _, err := os.Stat("campaign-report.html"); err != nil {
		t.Error(err)
	}
}

func TestCampaignReportErrors(t *testing.T) {
	loc, _ := fakeCampaign(t)
	empty := t.TempDir()
	missing := filepath.Join(t.TempDir(), "nope")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "--campaign LOCATION is required"},
		{[]string{"--campaign", loc, filepath.Join(loc, "other")}, "not both"},
		{[]string{"--campaign", missing}, "campaign " + missing + ": stat"},
		{[]string{"--campaign", empty}, "campaign has no plan at " + empty + ": not planned yet (blastfleet campaign plan --output " + empty + " writes the plan)"},
		{[]string{"--campaign", loc, "--output-file", filepath.Join(missing, "r.html")}, "--output-file " + filepath.Join(missing, "r.html")},
	} {
		_, _, err := run(t, "blastfleet", append([]string{"campaign", "report"}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("campaign report %v: %v, want %q", tc.args, err, tc.want)
		}
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("report created the missing campaign's directory")
	}
}
