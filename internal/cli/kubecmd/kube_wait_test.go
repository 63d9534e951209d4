package kubecmd

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/cli"
)

// testStatusWait: status --wait exits with one code per outcome, and
// --exit-code with the outcome so far (docs/cli.md lists the codes).
func testStatusWait(t *testing.T, f *kubeFixture) {
	old := cli.WatchInterval
	cli.WatchInterval = 50 * time.Millisecond
	t.Cleanup(func() { cli.WatchInterval = old })

	cond := func(typ, reason, msg string) metav1.Condition {
		return metav1.Condition{Type: typ, Status: metav1.ConditionTrue, Reason: reason, Message: msg, LastTransitionTime: metav1.Now()}
	}
	for _, tc := range []struct {
		name   string
		status func(*v1alpha1.SearchCampaignStatus)
		args   []string
		code   int
		msg    string
	}{
		{"w-complete", complete, []string{"--wait"}, cli.ExitComplete, ""},
		{"w-degraded", func(s *v1alpha1.SearchCampaignStatus) {
			complete(s)
			s.Conditions = []metav1.Condition{cond(v1alpha1.ConditionDegraded, "QueriesFailed", "2 queries failed: q17, q18")}
		}, []string{"--wait"}, cli.ExitDegraded, "is Complete but Degraded: QueriesFailed: 2 queries failed"},
		{"w-failed", func(s *v1alpha1.SearchCampaignStatus) {
			s.Phase = v1alpha1.CampaignFailed
			s.Conditions = []metav1.Condition{cond(v1alpha1.ConditionFailed, "InvalidSearch", "blastp refused")}
		}, []string{"--wait"}, cli.ExitFailed, "failed: InvalidSearch: blastp refused"},
		{"w-suspended", func(s *v1alpha1.SearchCampaignStatus) { s.Phase = v1alpha1.CampaignSuspended },
			[]string{"--wait"}, cli.ExitSuspended, "is Suspended (resume it with: blastfleet resume w-suspended)"},
		{"w-timeout", running, []string{"--wait", "--timeout", "300ms"}, cli.ExitTimeout, "no outcome after --timeout 300ms"},
		{"w-running", running, []string{"--exit-code"}, cli.ExitRunning, "is Running: no outcome yet"},
		{"w-failed-now", func(s *v1alpha1.SearchCampaignStatus) { s.Phase = v1alpha1.CampaignFailed },
			[]string{"--exit-code"}, cli.ExitFailed, "failed: no reason recorded"},
	} {
		f.campaign("default", tc.name)
		f.setStatus("default", tc.name, tc.status)
		out, errOut, err := f.cli(append([]string{"status", tc.name}, tc.args...)...)
		if code := cli.ExitCode(err); code != tc.code || (tc.msg != "" && !strings.Contains(err.Error(), tc.msg)) {
			t.Errorf("status %s %v: exit %d (%v), want %d %q\nstderr: %s", tc.name, tc.args, code, err, tc.code, tc.msg, errOut)
		}
		if !strings.Contains(out, "Name:") || strings.Count(out, "Name:") != 1 {
			t.Errorf("status %s %v printed the campaign %d times, want once:\n%s", tc.name, tc.args, strings.Count(out, "Name:"), out)
		}
	}

	// --wait prints nothing while it waits, and exits 0 once Complete.
	f.campaign("default", "w-later")
	f.setStatus("default", "w-later", running)
	done := make(chan error, 1)
	var out string
	go func() {
		var err error
		out, _, err = f.cli("status", "w-later", "--wait")
		done <- err
	}()
	f.setStatus("default", "w-later", func(s *v1alpha1.SearchCampaignStatus) { s.Queries.Done = 200 })
	f.setStatus("default", "w-later", complete)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("status --wait of a campaign that completed: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("status --wait did not return after the campaign completed")
	}
	if strings.Count(out, "Name:") != 1 || strings.Contains(out, "200/300") || !strings.Contains(out, "Complete") {
		t.Errorf("status --wait printed more than the outcome:\n%s", out)
	}

	if _, _, err := f.cli("status", "w-later", "--timeout", "1s"); err == nil || !strings.Contains(err.Error(), "--timeout") {
		t.Errorf("--timeout without --wait: %v", err)
	}
}
