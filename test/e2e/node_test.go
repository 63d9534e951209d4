package e2e

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/devstack"
	"github.com/blastfleet/blastfleet/test/support/testenv"
	"github.com/blastfleet/blastfleet/test/support/testenv/testkit"
)

// TestOneNodeCluster is the product on a real cluster on this machine
// (blastfleet dev up --cluster): our images in containerd, pods run by a
// kubelet, the database sharded by the real Job controller, partitions
// turned into launcher and worker pods by the real MPI operator, mpirun
// reaching the workers over ssh, all in a namespace that enforces the
// restricted Pod Security Standard. Faults are what users see on a
// cluster: pods deleted (a worker, a launcher, the operator, MinIO). It
// ends with dev down and checks that nothing is left on the machine.
func TestOneNodeCluster(t *testing.T) {
	t.Parallel() // beside TestEndToEnd's process stack
	testenv.RequireTools(t, "kubectl", "blastn", "makeblastdb")
	t0 := time.Now()
	f := newFixture(t)
	st := testkit.UpStack(t, testkit.StackOptions{Cluster: true, Argo: true, Lifetime: stackLifetime,
		Logs: []string{"supervisor", "kubelet"}, LogLines: 40})
	t.Logf("one-node cluster up in %s", time.Since(t0).Round(time.Second))
	cli := testenv.BuiltBinaries(t).CLI
	tg := &target{
		kubeconfig: st.Kubeconfig, ns: "default",
		endpoint: st.MinIO.Endpoint, bucket: st.MinIO.Bucket, secret: devstack.SecretName,
		store: st.Store, cli: cli, node: &stack{dir: st.Dir, cli: cli},
	}
	tg.c = testkit.Client(t, tg.kubeconfig)
	db := tg.database(t, f)

	// Alone: the samples' pods ask for a core and a half of the node's two.
	t.Run("readme-samples", func(t *testing.T) { testReadmeSamples(t, st) })
	t.Run("campaigns", func(t *testing.T) {
		t.Run("clean", func(t *testing.T) { t.Parallel(); testClean(t, tg, f, db) })
		t.Run("stops-not-failures", func(t *testing.T) { t.Parallel(); testStopsNotFailures(t, tg, f, db) })
		t.Run("worker-pod-deleted", func(t *testing.T) {
			t.Parallel()
			testPodDeleted(t, tg, f, db, "worker", func(name string) client.ListOption {
				return client.MatchingLabels{"training.kubeflow.org/job-name": name + "-p0-r0", "training.kubeflow.org/job-role": "worker"}
			})
		})
		t.Run("launcher-pod-deleted", func(t *testing.T) {
			t.Parallel()
			testPodDeleted(t, tg, f, db, "launcher", func(name string) client.ListOption {
				return client.MatchingLabels{"training.kubeflow.org/job-name": name + "-p0-r0", "training.kubeflow.org/job-role": "launcher"}
			})
		})
		t.Run("worker-pod-evicted", func(t *testing.T) { t.Parallel(); testWorkerEvicted(t, tg, f, db) })
		t.Run("operator-pod-deleted", func(t *testing.T) {
			t.Parallel()
			testPodDeleted(t, tg, f, db, "operator", func(string) client.ListOption {
				return client.MatchingLabels{"app.kubernetes.io/name": "blastfleet"}
			})
		})
	})
	// MinIO's restart hits every partition, so it runs alone.
	t.Run("minio-pod-deleted", func(t *testing.T) {
		testPodDeleted(t, tg, f, db, "minio", func(string) client.ListOption {
			return client.MatchingLabels{"app.kubernetes.io/name": "minio"}
		})
	})
	// Argo Workflows: the database built by a Workflow, then searched by
	// a campaign whose partition is a Workflow.
	argoDB := db
	t.Run("argo-database-same-shards", func(t *testing.T) { argoDB = testArgoDatabase(t, tg, db) })
	t.Run("argo-step-pod-deleted", func(t *testing.T) { testArgoStepPodDeleted(t, tg, f, argoDB) })
	t.Run("argo-chart-database-template", func(t *testing.T) { testChartDatabaseTemplate(t, tg, db) })
	t.Run("kueue-admits-in-turn", func(t *testing.T) { testKueue(t, tg, f, db) })
	t.Run("dev-down-leaves-nothing", func(t *testing.T) { testClusterDown(t, tg) })
	t.Logf("one-node cluster: %s", time.Since(t0).Round(time.Second))
}

// testPodDeleted deletes the pods selected (kubectl delete pod) once
// partition 0 holds a lease after a commit; the campaign completes with
// the unsharded search's bytes and no chunk committed twice.
func testPodDeleted(t *testing.T, tg *target, f *fixture, db, what string, sel func(campaign string) client.ListOption) {
	name := tg.name("node-" + what)
	c := tg.faultMidRun(t, name, db, func() {
		var pods corev1.PodList
		ctx := context.Background()
		if err := tg.c.List(ctx, &pods, sel(name)); err != nil || len(pods.Items) == 0 {
			t.Fatalf("no %s pod to delete (%v)", what, err)
		}
		p := pods.Items[0]
		if phase := tg.campaign(t, name).Status.Phase; phase != v1alpha1.CampaignRunning {
			t.Fatalf("campaign %s is %s when its %s pod is deleted; the fault must land mid-run", name, phase, what)
		}
		tg.kubectl(t, "delete", "pod", "-n", p.Namespace, p.Name, "--wait=false")
		t.Logf("deleted pod %s/%s mid-run", p.Namespace, p.Name)
	})
	s := tg.verify(t, c, f, expect{maxAttempts: 3, problemsOK: what == "minio"})
	t.Logf("%s: %d partitions replaced, %d chunk retries", name, c.Status.Partitions.Replaced, s.Retries)
}

// testWorkerEvicted evicts a worker pod (the Eviction API, as a node
// drain or the scheduler's preemption does) once partition 0 holds a
// lease after a commit. The pod's preStop hook SIGTERMs its ranks, and a
// rank told to stop stops its master: what the partition held is
// recorded stopped, not failed. The campaign completes with the
// unsharded search's bytes and no failed attempt.
func testWorkerEvicted(t *testing.T, tg *target, f *fixture, db string) {
	name := tg.name("node-evicted")
	c := tg.faultMidRun(t, name, db, func() {
		var pods corev1.PodList
		ctx := context.Background()
		if err := tg.c.List(ctx, &pods, client.MatchingLabels{"training.kubeflow.org/job-name": name + "-p0-r0",
			"training.kubeflow.org/job-role": "worker"}); err != nil || len(pods.Items) == 0 {
			t.Fatalf("no worker pod to evict (%v)", err)
		}
		p := pods.Items[0]
		ev := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace}}
		if err := tg.c.SubResource("eviction").Create(ctx, &p, ev); err != nil {
			t.Fatalf("evicting pod %s/%s: %v", p.Namespace, p.Name, err)
		}
		t.Logf("evicted pod %s/%s mid-run", p.Namespace, p.Name)
	})
	s := tg.verify(t, c, f, expect{maxAttempts: 3})
	fa := c.Status.Chunks.FailedAttempts
	t.Logf("%s: %d partitions replaced, %d chunk retries, %d stopped attempts, failed attempts %+v",
		name, c.Status.Partitions.Replaced, s.Retries, c.Status.Chunks.StoppedAttempts, fa)
	if fa.ExitCode+fa.Signal+fa.Error != 0 {
		t.Errorf("failed attempts %+v after an eviction: a stop is not a failure", fa)
	}
}

// kueueQueue is a ClusterQueue whose CPU quota admits one partition of
// kueueCampaign at a time (a launcher's 100m and two workers' 500m each;
// its memory, two workers' defaults of about 770Mi from the small
// database and the launcher's 128Mi, holds both), and its LocalQueue in
// the campaigns' namespace.
const kueueQueue = `apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: node
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: blastfleet
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: node
      resources:
      - name: cpu
        nominalQuota: 1500m
      - name: memory
        nominalQuota: 4Gi
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: blastfleet
  namespace: default
spec:
  clusterQueue: blastfleet
`

// testKueue: Kueue (its MPIJob integration) admits a campaign's two
// partitions one at a time, since the ClusterQueue's quota holds one;
// the other shows as Queued meanwhile (never two running), and the
// campaign completes with the unsharded search's bytes.
func testKueue(t *testing.T, tg *target, f *fixture, db string) {
	tg.apply(t, kueueQueue)
	name := tg.name("node-kueue")
	yaml := strings.Replace(tg.steadyCampaignYAML(name, db, queriesKey), "spec:\n", "spec:\n  queueName: blastfleet\n", 1)
	yaml = strings.Replace(yaml, "        cpu: 10m\n", "        cpu: 500m\n", 1)
	t0 := time.Now()
	tg.apply(t, yaml)
	queued := false
	deadline := time.Now().Add(campaignTimeout)
	var c *v1alpha1.SearchCampaign
	for {
		c = tg.campaign(t, name)
		p := c.Status.Partitions
		if p.Queued >= 1 && p.Running >= 1 {
			if !queued {
				t.Logf("%s after apply: %d partition running, %d queued (Kueue's quota holds one)", time.Since(t0).Round(time.Millisecond), p.Running, p.Queued)
			}
			queued = true
		}
		if p.Running > 1 {
			t.Fatalf("%d partitions running at once; the ClusterQueue's quota admits one", p.Running)
		}
		if c.Status.Phase == v1alpha1.CampaignComplete || c.Status.Phase == v1alpha1.CampaignFailed || time.Now().After(deadline) {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	if c.Status.Phase != v1alpha1.CampaignComplete {
		t.Fatalf("campaign %s is %s after %s: %s", name, c.Status.Phase, campaignTimeout, conditions(c))
	}
	if !queued {
		t.Error("no partition was seen Queued while another ran")
	}
	// Admission is not a failure: a partition Kueue resumes starts clean
	// (its launcher once failed on every resume: mpirun's ssh was refused).
	if r := c.Status.Partitions.Replaced; r != 0 {
		t.Errorf("%d partitions replaced; Kueue's admission should cost none", r)
	}
	out := tg.kubectl(t, "get", "workloads.kueue.x-k8s.io", "-o", "jsonpath={range .items[*]}{.metadata.name} {.status.admission.clusterQueue}{\"\\n\"}{end}")
	// The first partition admitted does every chunk while the second
	// waits; once the campaign is Complete the second is wound down, so
	// it may never be admitted.
	if !strings.Contains(out, " blastfleet") {
		t.Errorf("Kueue admitted no partition through ClusterQueue blastfleet:\n%s", out)
	}
	t.Logf("Kueue's workloads (name, ClusterQueue that admitted it):\n%s", out)
	tg.verify(t, c, f, expect{maxAttempts: 1})
	t.Logf("%s Complete %s after kubectl apply, partitions admitted in turn", name, time.Since(t0).Round(time.Millisecond))
}

// testClusterDown: dev down, with a Job's pod running (as a campaign's
// launcher would be), stops that pod without waiting out its timeout for
// the Job controller's finalizer, deletes a pod created meanwhile (as an
// operator still running in its grace period creates a Kueue-admitted
// partition's workers), and leaves nothing of the cluster on the
// machine: no process of the stack, no mount under its directory, no
// network namespace, bridge, veth or KUBE- iptables chain, no cgroup, and
// the sysctls as they were.
func testClusterDown(t *testing.T, tg *target) {
	s := tg.node
	spec := busyPod(t, tg)
	busy := startBusyJob(t, tg, spec)
	late := createDuringDown(tg, busy, spec)
	netnsBefore := entries("/run/netns")
	if len(devstack.Stragglers(s.dir)) == 0 {
		t.Fatal("no process carries the stack's marker before dev down")
	}
	t0 := time.Now()
	stdout, stderr, err := tg.run(t, s.cli, "dev", "down", "--dir", s.dir)
	if err != nil {
		t.Fatalf("blastfleet dev down: %v\n%s%s", err, stdout, stderr)
	}
	t.Logf("blastfleet dev down took %s", time.Since(t0).Round(time.Millisecond))
	if _, left, ok := strings.Cut(stderr, "deleting pods:"); ok {
		left, _, _ = strings.Cut(left, "\n")
		t.Errorf("dev down waited out its timeout for pods (the Job %s's stopped one, or pods created while it deleted):%s", busy, left)
	}
	if err := <-late; err != nil {
		t.Errorf("creating a pod while dev down deleted pods: %v", err)
	}
	if left := devstack.Stragglers(s.dir); len(left) > 0 {
		t.Errorf("processes left: %v", left)
	}
	if b, _ := os.ReadFile("/proc/self/mountinfo"); strings.Contains(string(b), s.dir) {
		t.Errorf("mounts left under %s", s.dir)
	}
	for _, e := range entries("/run/netns") {
		if !slices.Contains(netnsBefore, e) {
			t.Errorf("network namespace %s left", e)
		}
	}
	if _, err := os.Stat("/sys/class/net/bfdev0"); err == nil {
		t.Error("bridge bfdev0 left")
	}
	if out, _, _ := tg.run(t, "ip", "route"); strings.Contains(out, "10.213.") || strings.Contains(out, "10.214.") {
		t.Errorf("routes of the cluster's ranges left:\n%s", out)
	}
	for _, l := range entries("/sys/class/net") {
		if strings.HasPrefix(l, "veth") {
			t.Errorf("veth %s left", l)
		}
	}
	for _, ipt := range []string{"iptables-save", "ip6tables-save"} {
		out, _, _ := tg.run(t, ipt)
		if strings.Contains(out, "KUBE-") {
			t.Errorf("%s shows KUBE- chains after dev down", ipt)
		}
	}
	if _, err := os.Stat("/sys/fs/cgroup/memory/blastfleet-dev"); err == nil {
		t.Error("cgroup /sys/fs/cgroup/memory/blastfleet-dev left")
	}
	if out, _, _ := tg.run(t, "ps", "-eo", "comm"); strings.Contains(out, "containerd-shim") {
		t.Error(fmt.Sprintf("containerd shims left:\n%s", out))
	}
}

func entries(dir string) []string {
	es, _ := os.ReadDir(dir)
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}
