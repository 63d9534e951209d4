package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/argowf"
)

// argoCampaignYAML is campaignYAML run by Argo Workflows: one partition
// of two engine steps (workers: 2), each one BLAST worker in process,
// and chunks of one query (30 chunks), so the campaign lasts long
// enough on the cluster's unslowed BLAST for a pod deletion to land
// while the steps work.
func (tg *target) argoCampaignYAML(name, db string) string {
	y := tg.campaignYAML(name, db, queriesKey)
	y = strings.Replace(y, "spec:\n", "spec:\n  executor: argo\n", 1)
	y = strings.Replace(y, "    count: 2\n", "    count: 1\n", 1)
	return strings.Replace(y, "    queries: 2\n", "    queries: 1\n", 1)
}

// testArgoStepPodDeleted: a campaign with spec.executor argo runs as an
// Argo Workflow the real workflow controller turns into pods (argoexec's
// init and wait containers beside the engine, in the namespace that
// enforces the restricted Pod Security Standard). One step's pod is
// deleted while it holds a lease; Argo's retryStrategy runs the step
// again, and the campaign completes with the unsharded search's bytes.
// If the step had finished before its pod was deleted, the test says
// the fault was not exercised instead of claiming it.
func testArgoStepPodDeleted(t *testing.T, tg *target, f *fixture, db string) {
	name := tg.name("node-argo")
	wf := name + "-p0-r0"
	t0 := time.Now()
	tg.apply(t, tg.argoCampaignYAML(name, db))
	tg.midRun(t, name)
	ctx := context.Background()
	var pods corev1.PodList
	if err := tg.c.List(ctx, &pods, client.InNamespace(tg.ns), client.MatchingLabels{"workflows.argoproj.io/workflow": wf}); err != nil {
		t.Fatal(err)
	}
	var victim *corev1.Pod
	for i := range pods.Items {
		if p := &pods.Items[i]; p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
			victim = p
			break
		}
	}
	if victim == nil {
		t.Fatalf("no running step pod of Workflow %s mid-run (%d pods)", wf, len(pods.Items))
	}
	phase := tg.campaign(t, name).Status.Phase
	tg.kubectl(t, "delete", "pod", "-n", victim.Namespace, victim.Name, "--wait=false")
	t.Logf("deleted step pod %s of Workflow %s with the campaign %s, %s after apply", victim.Name, wf, phase, time.Since(t0).Round(time.Millisecond))
	c := tg.waitPhase(t, name, v1alpha1.CampaignComplete, campaignTimeout)
	t.Logf("%s Complete %s after apply", name, time.Since(t0).Round(time.Millisecond))
	s := tg.verify(t, c, f, expect{maxAttempts: 3})

	w := &unstructured.Unstructured{}
	w.SetGroupVersionKind(argowf.Workflow)
	if err := tg.c.Get(ctx, client.ObjectKey{Namespace: tg.ns, Name: wf}, w); err != nil {
		t.Fatalf("Workflow %s: %v", wf, err)
	}
	wfPhase, _, _ := unstructured.NestedString(w.Object, "status", "phase")
	nodes, _, _ := unstructured.NestedMap(w.Object, "status", "nodes")
	podNodes := 0
	for _, n := range nodes {
		if m, _ := n.(map[string]any); m["type"] == "Pod" {
			podNodes++
		}
	}
	t.Logf("Workflow %s %s: %d step pods for 2 steps; %d partitions replaced, %d chunk retries", wf, wfPhase, podNodes, c.Status.Partitions.Replaced, s.Retries)
	switch {
	case podNodes > 2 && wfPhase == argowf.PhaseSucceeded:
		// Absorbed inside the Workflow: a step retried, nothing replaced.
		if r := c.Status.Partitions.Replaced; r != 0 {
			t.Errorf("%d partitions replaced; Argo's retryStrategy should have absorbed the deleted pod", r)
		}
		t.Logf("the deleted step ran again in a new pod (retryStrategy)")
	case c.Status.Partitions.Replaced > 0:
		t.Logf("the Workflow ended %s after the deletion; the operator replaced it", wfPhase)
	default:
		t.Logf("step pod %s had finished before its deletion: the fault was not exercised on this run (the result is still checked)", victim.Name)
	}
}
