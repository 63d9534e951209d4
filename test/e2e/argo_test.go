package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers"
	"github.com/blastfleet/blastfleet/internal/operator/argowf"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// argoCampaignYAML is campaignYAML run by Argo Workflows: one partition
// of one engine step (workers: 1) with one BLAST worker in process
// beside the master, and chunks of one query (30 chunks), so the
// campaign lasts long enough on the cluster's unslowed BLAST for a pod
// deletion to land mid-run, and cannot complete without the step running
// again (or the partition replaced).
func (tg *target) argoCampaignYAML(name, db string) string {
	y := tg.campaignYAML(name, db, queriesKey)
	y = strings.Replace(y, "spec:\n", "spec:\n  executor: argo\n", 1)
	y = strings.Replace(y, "    count: 2\n    workers: 2\n    slotsPerWorker: 1\n", "    count: 1\n    workers: 1\n    slotsPerWorker: 1\n", 1)
	return strings.Replace(y, "    queries: 2\n", "    queries: 1\n", 1)
}

// testArgoStepPodDeleted: a campaign with spec.executor argo runs as an
// Argo Workflow the real workflow controller turns into pods (argoexec's
// init and wait containers beside the engine, in the namespace that
// enforces the restricted Pod Security Standard). The step's pod is
// deleted while it holds a lease; Argo's retryStrategy runs the step
// again in a new pod, which carries on from the ledger, and the campaign
// completes with the unsharded search's bytes without the operator
// replacing the partition. If the step had finished before its pod was
// deleted, the test says the fault was not exercised instead of
// claiming it.
func testArgoStepPodDeleted(t *testing.T, tg *target, f *fixture, db string) {
	name := tg.name("node-argo")
	wf := name + "-p0-r0"
	t0 := time.Now()
	tg.apply(t, tg.argoCampaignYAML(name, db))
	if !tg.midRunOrDone(t, name, true) {
		c := tg.waitPhase(t, name, v1alpha1.CampaignComplete, campaignTimeout)
		t.Logf("campaign %s completed before its step was seen mid-run: the pod deletion was NOT exercised; the result is still checked", name)
		tg.verify(t, c, f, expect{maxAttempts: 3})
		return
	}
	ctx := context.Background()
	// Deleted at once: Argo fails the node and its retryStrategy runs
	// the step again if it has seen the pod running for
	// RECENTLY_STARTED_POD_DURATION (2 s on the dev cluster), else it
	// resubmits the pod; a new pod either way, told apart below. (Waiting
	// for Argo's view let the campaign finish first on a fast run.)
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
	// Watch the Workflow until the campaign ends (a finished campaign's
	// Workflows are removed): how many step pods it ran, and whether one
	// ended in error or failure (the deleted one).
	podNodes, failedNodes := 0, 0
	newPods := map[string]bool{} // UIDs of the Workflow's pods after the victim
	var c *v1alpha1.SearchCampaign
	for deadline := time.Now().Add(campaignTimeout); ; time.Sleep(250 * time.Millisecond) {
		var now corev1.PodList
		if err := tg.c.List(ctx, &now, client.InNamespace(tg.ns), client.MatchingLabels{"workflows.argoproj.io/workflow": wf}); err == nil {
			for _, p := range now.Items {
				if p.UID != victim.UID {
					newPods[string(p.UID)] = true
				}
			}
		}
		w := &unstructured.Unstructured{}
		w.SetGroupVersionKind(argowf.Workflow)
		if err := tg.c.Get(ctx, client.ObjectKey{Namespace: tg.ns, Name: wf}, w); err == nil {
			nodes, _, _ := unstructured.NestedMap(w.Object, "status", "nodes")
			pods, failed := 0, 0
			for _, n := range nodes {
				if m, _ := n.(map[string]any); m["type"] == "Pod" {
					pods++
					if m["phase"] == argowf.PhaseError || m["phase"] == argowf.PhaseFailed {
						failed++
					}
				}
			}
			podNodes, failedNodes = max(podNodes, pods), max(failedNodes, failed)
		}
		c = tg.campaign(t, name)
		if c.Status.Phase == v1alpha1.CampaignComplete || c.Status.Phase == v1alpha1.CampaignFailed {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("campaign %s not Complete after %s: %s", name, campaignTimeout, conditions(c))
		}
	}
	if c.Status.Phase != v1alpha1.CampaignComplete {
		t.Fatalf("campaign %s Failed: %s", name, conditions(c))
	}
	t.Logf("%s Complete %s after apply", name, time.Since(t0).Round(time.Millisecond))
	s := tg.verify(t, c, f, expect{maxAttempts: 3})
	t.Logf("Workflow %s: %d pods after the deleted one, %d step nodes of type Pod, %d in error; %d partitions replaced, %d chunk retries",
		wf, len(newPods), podNodes, failedNodes, c.Status.Partitions.Replaced, s.Retries)
	switch {
	case c.Status.Partitions.Replaced > 0:
		t.Errorf("the Workflow failed after one pod deletion and the operator replaced it: Argo should have run the step again")
	case len(newPods) > 0 && podNodes >= 2:
		t.Logf("Argo's retryStrategy ran the step again in a new pod, which finished the campaign")
	case len(newPods) > 0:
		// Argo resubmits the pod of a node it still sees Pending (or
		// started under RECENTLY_STARTED_POD_DURATION ago, 2 s on the
		// dev cluster) rather than failing the node.
		t.Logf("Argo resubmitted the step's pod (its node had not been seen running), which finished the campaign")
	default:
		t.Logf("step pod %s had finished the campaign before its deletion: the fault was not exercised on this run (the result is still checked)", victim.Name)
	}
}

// testArgoDatabase: the test's database built again by an Argo Workflow
// (spec.builder argo: verify the source's checksum, a makeblastdb step
// per shard, the manifest last) is the Job path's: the same source
// checksum, sequences and letters, and shard for shard the same names,
// sequences, letters and sequence ids in OID order (the .ids file's
// checksum; makeblastdb stamps its files with the build's date, so their
// bytes differ between any two builds). Returns its name: the Argo
// campaign searches it, so its shards also give the unsharded result.
func testArgoDatabase(t *testing.T, tg *target, jobDB string) string {
	name := tg.name("argo-families")
	t0 := time.Now()
	tg.apply(t, tg.databaseYAMLBuilder(name, "argo"))
	var db v1alpha1.BlastDatabase
	waitFor(t, 3*time.Minute, "BlastDatabase "+name+" Ready", func() (bool, string) {
		if err := tg.c.Get(context.Background(), client.ObjectKey{Namespace: tg.ns, Name: name}, &db); err != nil {
			return false, err.Error()
		}
		if db.Status.Phase == v1alpha1.DatabaseFailed {
			t.Fatalf("BlastDatabase %s Failed: %+v", name, db.Status.Conditions)
		}
		return db.Status.Phase == v1alpha1.DatabaseReady, fmt.Sprintf("%s %d/%d shards", db.Status.Phase, db.Status.ShardsBuilt, db.Status.Shards)
	})
	t.Logf("BlastDatabase %s Ready in %s through Workflow %s", name, time.Since(t0).Round(time.Millisecond), controllers.PipelineName(name))
	w := &unstructured.Unstructured{}
	w.SetGroupVersionKind(argowf.Workflow)
	if err := tg.c.Get(context.Background(), client.ObjectKey{Namespace: tg.ns, Name: controllers.PipelineName(name)}, w); err != nil {
		t.Errorf("the database's Workflow: %v", err)
	} else if phase, _, _ := unstructured.NestedString(w.Object, "status", "phase"); phase != argowf.PhaseSucceeded {
		t.Errorf("Workflow %s is %s", w.GetName(), phase)
	}
	var jobs batchv1.JobList
	if err := tg.c.List(context.Background(), &jobs, client.InNamespace(tg.ns), client.MatchingLabels{controllers.LabelDatabase: name}); err != nil || len(jobs.Items) != 0 {
		t.Errorf("%d Jobs for a database of builder argo (%v)", len(jobs.Items), err)
	}

	sameShards(t, tg, "e2e-databases/"+tg.ns+"/"+name, "e2e-databases/"+tg.ns+"/"+jobDB)
	return name
}

// sameShards compares the databases at two prefixes of the bucket: the
// same source, sequences and letters, and shard for shard the same
// names, sequences, letters and sequence ids in OID order.
func sameShards(t *testing.T, tg *target, prefixA, prefixB string) {
	t.Helper()
	load := func(prefix string) *manifest.Manifest {
		st, err := tg.store(prefix)
		if err != nil {
			t.Fatal(err)
		}
		m, _, err := manifest.LoadCurrent(context.Background(), st)
		if err != nil {
			t.Fatalf("manifest at %s: %v", prefix, err)
		}
		return m
	}
	a, j := load(prefixA), load(prefixB)
	if a.Source.SHA256 != j.Source.SHA256 || a.Sequences != j.Sequences || a.Letters != j.Letters || len(a.Shards) != len(j.Shards) {
		t.Fatalf("%s: source %s, %d sequences, %d letters, %d shards; %s: %s, %d, %d, %d", prefixA,
			a.Source.SHA256, a.Sequences, a.Letters, len(a.Shards), prefixB, j.Source.SHA256, j.Sequences, j.Letters, len(j.Shards))
	}
	ids := func(s manifest.Shard) string {
		for _, f := range s.Files {
			if f.Name == s.IDsFile {
				return f.SHA256
			}
		}
		return "none"
	}
	for i := range a.Shards {
		as, js := a.Shards[i], j.Shards[i]
		if as.Name != js.Name || as.Sequences != js.Sequences || as.Letters != js.Letters || ids(as) != ids(js) || ids(as) == "none" {
			t.Errorf("shard %d: %s %d sequences %d letters ids %s; the other's %s %d %d %s",
				i, as.Name, as.Sequences, as.Letters, ids(as), js.Name, js.Sequences, js.Letters, ids(js))
		}
	}
	t.Logf("%s holds %s's %d shards (source sha256 %.12s)", prefixA, prefixB, len(a.Shards), a.Source.SHA256)
}

// testChartDatabaseTemplate: the chart's WorkflowTemplate
// (argo.databaseTemplate.enabled), applied as helm renders it and run by a
// Workflow that names it (as a CronWorkflow would), builds the Job path's
// shards.
func testChartDatabaseTemplate(t *testing.T, tg *target, jobDB string) {
	helm := os.Getenv("BLASTFLEET_HELM")
	if helm == "" {
		t.Skip("BLASTFLEET_HELM is not set (hack/install-helm.sh)")
	}
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	out, stderr, err := tg.run(t, helm, "template", "blastfleet", filepath.Join(root, "charts/blastfleet"), "--namespace", tg.ns,
		"--set", "argo.databaseTemplate.enabled=true", "--show-only", "templates/argo-database-template.yaml")
	if err != nil {
		t.Fatalf("helm template: %v\n%s", err, stderr)
	}
	tg.apply(t, out)
	// The worker image the operator gave the Job path's database.
	var jobs batchv1.JobList
	if err := tg.c.List(context.Background(), &jobs, client.InNamespace(tg.ns), client.MatchingLabels{controllers.LabelDatabase: jobDB}); err != nil || len(jobs.Items) == 0 {
		t.Fatalf("the Jobs of %s: %v (%d)", jobDB, err, len(jobs.Items))
	}
	image := jobs.Items[0].Spec.Template.Spec.Containers[0].Image
	name := tg.name("tmpl-build")
	prefix := "e2e-databases-template/" + name
	tg.apply(t, fmt.Sprintf(`apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata:
  name: %s
spec:
  workflowTemplateRef:
    name: blastfleet-build-database
  arguments:
    parameters:
    - {name: source, value: "s3://%s/%s"}
    - {name: type, value: nucl}
    - {name: shards, value: "3"}
    - {name: name, value: %s}
    - {name: output, value: "s3://%s/%s"}
    - {name: endpoint, value: "%s"}
    - {name: credentialsSecret, value: %s}
    - {name: image, value: "%s"}
`, name, tg.bucket, dbKey, name, tg.bucket, prefix, tg.endpoint, tg.secret, image))
	t0 := time.Now()
	waitFor(t, 3*time.Minute, "Workflow "+name+" Succeeded", func() (bool, string) {
		w := &unstructured.Unstructured{}
		w.SetGroupVersionKind(argowf.Workflow)
		if err := tg.c.Get(context.Background(), client.ObjectKey{Namespace: tg.ns, Name: name}, w); err != nil {
			return false, err.Error()
		}
		phase, _, _ := unstructured.NestedString(w.Object, "status", "phase")
		msg, _, _ := unstructured.NestedString(w.Object, "status", "message")
		if phase == argowf.PhaseFailed || phase == argowf.PhaseError {
			t.Fatalf("Workflow %s %s: %s", name, phase, msg)
		}
		return phase == argowf.PhaseSucceeded, phase + " " + msg
	})
	t.Logf("the chart's WorkflowTemplate built %s in %s", prefix, time.Since(t0).Round(time.Millisecond))
	sameShards(t, tg, prefix, "e2e-databases/"+tg.ns+"/"+jobDB)
}
