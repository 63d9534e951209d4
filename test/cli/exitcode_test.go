package cli

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/test/support/kubetest"
)

// TestExitCodes: the built binary exits with status --wait's code per
// outcome (docs/cli.md), which in-process tests cannot see, and prints
// the deprecation of results -o FILE on standard error, not among the
// results.
func TestExitCodes(t *testing.T) {
	env := kubetest.Start(t)
	p := newPlugin(t, writeKubeconfig(t, env.Config))
	ctx := context.Background()
	campaign := func(name string, status v1alpha1.SearchCampaignStatus) {
		t.Helper()
		c := &v1alpha1.SearchCampaign{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
			Spec: v1alpha1.SearchCampaignSpec{
				DatabaseRef: v1alpha1.DatabaseReference{Name: "sprot"},
				Queries:     v1alpha1.Queries{ObjectReference: v1alpha1.ObjectReference{Key: "q.fa"}},
				Program:     "blastp",
				Output: v1alpha1.ObjectStorage{Endpoint: "http://minio.minio.svc:9000", Bucket: "blastfleet", Prefix: "campaigns",
					CredentialsSecretRef: &v1alpha1.CredentialsSecretRef{Name: "minio-credentials"}},
			},
		}
		if err := env.Client.Create(ctx, c); err != nil {
			t.Fatal(err)
		}
		c.Status = status
		if err := env.Client.Status().Update(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	now := metav1.Now()
	campaign("ok", v1alpha1.SearchCampaignStatus{Phase: v1alpha1.CampaignComplete})
	campaign("failed", v1alpha1.SearchCampaignStatus{Phase: v1alpha1.CampaignFailed, Conditions: []metav1.Condition{{
		Type: v1alpha1.ConditionFailed, Status: metav1.ConditionTrue, Reason: "InvalidSearch", Message: "blastp refused", LastTransitionTime: now}}})
	campaign("degraded", v1alpha1.SearchCampaignStatus{Phase: v1alpha1.CampaignComplete, Conditions: []metav1.Condition{{
		Type: v1alpha1.ConditionDegraded, Status: metav1.ConditionTrue, Reason: "QueriesFailed", Message: "1 query failed", LastTransitionTime: now}}})
	campaign("paused", v1alpha1.SearchCampaignStatus{Phase: v1alpha1.CampaignSuspended})
	campaign("busy", v1alpha1.SearchCampaignStatus{Phase: v1alpha1.CampaignRunning})

	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"ok", "--wait"}, 0, ""},
		{[]string{"failed", "--wait"}, 2, "blastfleet: campaign failed failed: InvalidSearch: blastp refused"},
		{[]string{"failed", "--watch"}, 2, "InvalidSearch"},
		{[]string{"degraded", "--wait"}, 3, "is Complete but Degraded: QueriesFailed: 1 query failed"},
		{[]string{"paused", "--wait"}, 4, "is Suspended"},
		{[]string{"busy", "--wait", "--timeout", "1s"}, 5, "no outcome after --timeout 1s"},
		{[]string{"busy", "--exit-code"}, 6, "no outcome yet"},
		{[]string{"missing", "--wait"}, 1, "not found"},
	} {
		_, errOut, code := p.kubectl(append([]string{"blastfleet", "status"}, tc.args...)...)
		if code != tc.code || !strings.Contains(errOut, tc.msg) {
			t.Errorf("status %v: exit %d, want %d; stderr %q, want %q", tc.args, code, tc.code, errOut, tc.msg)
		}
	}

	out, errOut, _ := p.kubectl("blastfleet", "results", "ok", "-o", "-")
	if !strings.Contains(errOut, "Flag --output has been deprecated, use --output-file FILE") || strings.Contains(out, "deprecated") {
		t.Errorf("results -o: stdout %q, stderr %q", out, errOut)
	}
}
