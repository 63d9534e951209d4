package kubecmd

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/cli/clitest"
	"github.com/blastfleet/blastfleet/internal/cli/report"
	"github.com/blastfleet/blastfleet/internal/storage/runrecord"
)

func testReport(t *testing.T, f *kubeFixture) {
	clearAWS(t)
	f.campaign("default", "rep")
	f.ledgerWithCommits("default", "rep", 6, 2)
	if err := runrecord.WriteRun(context.Background(), f.store("campaigns/default/rep"), clitest.RunRecord("rep-p0-r0-1234abcd", "0")); err != nil {
		t.Fatal(err)
	}
	f.setStatus("default", "rep", func(s *v1alpha1.SearchCampaignStatus) {
		s.Phase, s.Location = v1alpha1.CampaignRunning, "s3://blastfleet/campaigns/default/rep"
	})

	file := filepath.Join(t.TempDir(), "report.html")
	stdout, stderr, err := f.cli("report", "rep", "--from-secret", "--output-file", file)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if stdout != "" || !strings.HasPrefix(stderr, "wrote "+file+" (") || !strings.HasSuffix(stderr, " KiB): 1 run, 2 ranks, 0 failures\n") {
		t.Errorf("stdout %q, stderr %q", stdout, stderr)
	}
	page, _ := os.ReadFile(file)
	for _, want := range []string{"namespace <b>default</b>", "phase <b>Running</b>", "4 done, 0 failed of 6 queries",
		"ledger <code>s3://blastfleet/campaigns/default/rep</code>", "0/rep-p0-r0-1234abcd rank 0 (master)"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report lacks %q", want)
		}
	}

	// To standard output; and by default to NAME-report.html. The old
	// -o FILE still works, saying it is deprecated.
	if out := f.mustCLI("report", "rep", "--from-secret", "--output-file", "-"); !strings.HasPrefix(out, "<!DOCTYPE html>") {
		t.Errorf("--output-file -: %.200q", out)
	}
	old := filepath.Join(t.TempDir(), "old.html")
	// (cobra prints the notice to OutOrStderr: standard error in the
	// binary, test/cli checks; the buffer SetOut gave it here.)
	if stdout, _, err := f.cli("report", "rep", "--from-secret", "-o", old); err != nil || !strings.Contains(stdout, "Flag --output has been deprecated, use --output-file FILE") {
		t.Errorf("-o FILE: %v, notice %q", err, stdout)
	}
	if _, err := os.Stat(old); err != nil {
		t.Errorf("-o FILE wrote no file: %v", err)
	}

	// The run summary as JSON, to standard output by default.
	var sum report.Summary
	if err := json.Unmarshal([]byte(f.mustCLI("report", "rep", "--from-secret", "--format", "json")), &sum); err != nil {
		t.Fatalf("--format json: %v", err)
	}
	if sum.Campaign != "rep" || sum.Namespace != "default" || sum.Phase != "Running" || sum.Queries.Total != 6 || sum.Queries.Done != 4 ||
		sum.Runs.Count != 1 || sum.Runs.Ranks != 2 || sum.Location != "s3://blastfleet/campaigns/default/rep" || sum.Complete {
		t.Errorf("--format json: %+v", sum)
	}
	if _, _, err := f.cli("report", "rep", "--format", "pdf"); err == nil || !strings.Contains(err.Error(), `--format "pdf": want html or json`) {
		t.Errorf("--format pdf: %v", err)
	}
	t.Chdir(t.TempDir())
	f.mustCLI("report", "rep", "--from-secret")
	if _, err := os.Stat("rep-report.html"); err != nil {
		t.Errorf("default output: %v", err)
	}

	// Not planned yet: no ledger at all.
	f.campaign("default", "rep-new")
	_, _, err = f.cli("report", "rep-new", "--from-secret")
	if err == nil || !strings.Contains(err.Error(), "campaign rep-new has no plan at s3://blastfleet/campaigns/default/rep-new yet") {
		t.Errorf("no plan: %v", err)
	}
	// No credentials: said as for results.
	if _, _, err := f.cli("report", "rep"); err == nil || !strings.Contains(err.Error(), "s3 credentials missing: set AWS_ACCESS_KEY_ID") || !strings.Contains(err.Error(), "or add --from-secret") {
		t.Errorf("without credentials: %v", err)
	}
}
