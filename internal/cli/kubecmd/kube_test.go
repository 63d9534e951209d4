package kubecmd

import (
	"testing"

	"github.com/blastfleet/blastfleet/controllers"
	"github.com/blastfleet/blastfleet/internal/devstack/localrunner"
)

// TestClusterCommands runs the cluster commands against one real API
// server and MinIO, one subtest per behaviour.
func TestClusterCommands(t *testing.T) {
	f := startKube(t)
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, *kubeFixture)
	}{
		{"submit/flags", testSubmitFlags},
		{"submit/file", testSubmitFile},
		{"submit/dry-run", testSubmitDryRun},
		{"submit/refused", testSubmitRefused},
		{"submit/checked", testSubmitChecked},
		{"submit/upload", testSubmitUpload},
		{"submit/stores", testSubmitStores},
		{"get", testGet},
		{"status", testStatus},
		{"status/json", testStatusJSON},
		{"status/watch", testStatusWatch},
		{"status/watch-events", testStatusWatchEvents},
		{"status/wait", testStatusWait},
		{"suspend-resume", testSuspendResume},
		{"delete", testDelete},
		{"not-found", testNotFound},
		{"results", testResults},
		{"results/incomplete", testResultsIncomplete},
		{"report", testReport},
		{"logs/file", testLogsFile},
		{"logs/pod", testLogsPod},
		{"argo", testArgo},
		{"kubeconfig", testKubeconfigErrors},
		{"completion", testCompletion},
		{"impersonation", testImpersonation},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, f.with(t)) })
	}
}

// TestLabelsMirrorOperator: the CLI finds partitions by the operator's
// labels without importing the operator.
func TestLabelsMirrorOperator(t *testing.T) {
	for _, tc := range []struct{ cli, operator string }{
		{labelCampaign, controllers.LabelCampaign},
		{labelPartition, controllers.LabelPartition},
		{labelRestart, controllers.LabelRestart},
	} {
		if tc.cli != tc.operator {
			t.Errorf("CLI label %q, operator's %q", tc.cli, tc.operator)
		}
	}
	if got := controllers.PartitionName("run", 1, 2); got != "run-p1-r2" {
		t.Errorf("partition names changed (%s): update the test fixture and docs/cli.md", got)
	}
}

// The local runner records the launcher log where "logs" looks for it.
func TestLauncherLogAnnotationMatchesRunner(t *testing.T) {
	if annotationLauncherLog != localrunner.AnnotationLauncherLog {
		t.Fatalf("logs reads %q, the local runner writes %q", annotationLauncherLog, localrunner.AnnotationLauncherLog)
	}
}
