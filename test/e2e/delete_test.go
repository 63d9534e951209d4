package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// campaignLabel is the label the operator puts on a campaign's
// partitions and planning Job.
const campaignLabel = "blastfleet.io/campaign"

// testDeletedWhileRunning: "blastfleet delete --wait" of a running
// campaign returns once its partitions are gone: deleted by the garbage
// collector (on the local stack, the supervisor's stand-in for it), and
// their processes killed by the runner.
func testDeletedWhileRunning(t *testing.T, tg *target, db string) {
	name := tg.name("e2e-deleted")
	tg.apply(t, tg.campaignYAML(name, db, queriesKey))
	tg.waitPhase(t, name, v1alpha1.CampaignRunning, time.Minute)
	launcher := 0
	if tg.stack != nil {
		launcher = tg.stack.launcherPID(t, name+"-p0-r0")
	}
	t0 := time.Now()
	stdout, stderr, err := tg.run(t, tg.cli, "delete", name, "-n", tg.ns, "--wait", "--timeout", "1m")
	if err != nil {
		t.Fatalf("blastfleet delete --wait: %v\n%s%s", err, stdout, stderr)
	}
	t.Logf("blastfleet delete --wait took %s: %s", time.Since(t0).Round(time.Millisecond), strings.TrimSpace(stdout))
	ctx := context.Background()
	waitFor(t, 30*time.Second, "the campaign's MPIJobs and Jobs gone", func() (bool, string) {
		var mpis kubeflow.MPIJobList
		var jobs batchv1.JobList
		sel := client.MatchingLabels{campaignLabel: name}
		if err := tg.c.List(ctx, &mpis, client.InNamespace(tg.ns), sel); err != nil {
			return false, err.Error()
		}
		if err := tg.c.List(ctx, &jobs, client.InNamespace(tg.ns), sel); err != nil {
			return false, err.Error()
		}
		return len(mpis.Items)+len(jobs.Items) == 0, fmt.Sprintf("%d MPIJobs, %d Jobs", len(mpis.Items), len(jobs.Items))
	})
	if launcher > 0 {
		start, _ := testenv.ProcStart(launcher)
		waitFor(t, 20*time.Second, "the deleted partition's launcher to end", func() (bool, string) {
			_, state, now, ok := testenv.ProcStat(launcher)
			return !ok || now != start || state == "Z", fmt.Sprintf("pid %d state %s", launcher, state)
		})
	}
}
