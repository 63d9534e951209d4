package kubecmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
)

func testSuspendResume(t *testing.T, f *kubeFixture) {
	f.campaign("default", "sr")
	for _, step := range []struct {
		cmd, out string
		want     bool
	}{
		{"suspend", "searchcampaign.blastfleet.io/sr suspended\n", true},
		{"suspend", "searchcampaign.blastfleet.io/sr already suspended\n", true},
		{"resume", "searchcampaign.blastfleet.io/sr resumed\n", false},
		{"resume", "searchcampaign.blastfleet.io/sr already resumed\n", false},
	} {
		if out := f.mustCLI(step.cmd, "sr"); out != step.out {
			t.Errorf("%s: %q, want %q", step.cmd, out, step.out)
		}
		if got := f.get("default", "sr").Spec.Suspend; got != step.want {
			t.Errorf("after %s: spec.suspend = %v", step.cmd, got)
		}
	}
	// The patch touches spec.suspend only.
	if c := f.get("default", "sr"); c.Spec.Program != "blastp" || c.Spec.Output.Bucket != fxBucket {
		t.Errorf("resume changed the spec: %+v", c.Spec)
	}
}

func testDelete(t *testing.T, f *kubeFixture) {
	old := deletePoll
	deletePoll = 50 * time.Millisecond
	t.Cleanup(func() { deletePoll = old })
	f.campaign("default", "del1")
	f.campaign("default", "del2")
	out, errOut, err := f.cli("delete", "del1", "del2", "--wait")
	if err != nil || out != "searchcampaign.blastfleet.io/del1 deleted\nsearchcampaign.blastfleet.io/del2 deleted\n" ||
		!strings.Contains(errOut, "ledger and result stay at s3://blastfleet/campaigns/default/del1") {
		t.Errorf("delete: %v %q %q", err, out, errOut)
	}
	for _, name := range []string{"del1", "del2"} {
		var c v1alpha1.SearchCampaign
		if err := f.c.Get(context.Background(), client.ObjectKey{Namespace: "default", Name: name}, &c); !apierrors.IsNotFound(err) {
			t.Errorf("%s still there: %v", name, err)
		}
	}
	if _, _, err := f.cli("delete", "del1"); err == nil || !strings.Contains(err.Error(), `campaign "del1" not found`) {
		t.Errorf("deleting a deleted campaign: %v", err)
	}
}

func testNotFound(t *testing.T, f *kubeFixture) {
	f.campaign("default", "typo-target")
	for _, cmd := range [][]string{{"status", "typo-targte"}, {"get", "typo-targte"}, {"results", "typo-targte"}, {"logs", "typo-targte"}, {"suspend", "typo-targte"}} {
		_, _, err := f.cli(cmd...)
		if err == nil || !strings.Contains(err.Error(), `campaign "typo-targte" not found in namespace "default"; campaigns there: `) ||
			!strings.Contains(err.Error(), "typo-target") {
			t.Errorf("%v: %v", cmd, err)
		}
	}
	f.namespace("nothing-here")
	_, _, err := f.cli("status", "x", "-n", "nothing-here")
	if err == nil || !strings.Contains(err.Error(), `namespace "nothing-here" has no campaigns (blastfleet get -A lists every namespace's`) {
		t.Errorf("empty namespace: %v", err)
	}
}

func testLogsFile(t *testing.T, f *kubeFixture) {
	c := f.campaign("default", "lg")
	log := "mpirun: 4 ranks\nmaster: leased chunk [0,2)\nmaster: committed chunk [0,2)\n"
	path := filepath.Join(t.TempDir(), "default", "lg-p0-r1", "launcher.log")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	f.partitionJob(c, 0, 0, map[string]string{annotationLauncherLog: filepath.Join(t.TempDir(), "gone.log")})
	f.partitionJob(c, 0, 1, map[string]string{annotationLauncherLog: path}) // the replacement: the latest
	if out := f.mustCLI("logs", "lg"); out != log {
		t.Errorf("logs: %q, want %q", out, log)
	}
	if out := f.mustCLI("logs", "lg", "--partition", "0", "--tail", "1"); out != "master: committed chunk [0,2)\n" {
		t.Errorf("logs --tail 1: %q", out)
	}
	if _, _, err := f.cli("logs", "lg", "--partition", "3"); err == nil || !strings.Contains(err.Error(), "campaign lg has no partition 3; its partitions: 0 (lg-p0-r0, Starting), 0 (lg-p0-r1, Starting)") {
		t.Errorf("a missing partition: %v", err)
	}

	// --follow prints what the launcher appends until the MPIJob finishes.
	old := followInterval
	followInterval = 50 * time.Millisecond
	t.Cleanup(func() { followInterval = old })
	type result struct {
		out string
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, _, err := f.cli("logs", "lg", "-f")
		done <- result{out, err}
	}()
	time.Sleep(200 * time.Millisecond)
	fh, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fh.WriteString("master: campaign complete\n")
	fh.Close()
	if err := f.c.Delete(context.Background(), &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: "kubeflow.org/v2beta1", Kind: "MPIJob"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "lg-p0-r1"}}); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		if r.err != nil || r.out != log+"master: campaign complete\n" {
			t.Errorf("logs -f: %v %q", r.err, r.out)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("logs -f did not return after the MPIJob was deleted")
	}
	if _, _, err := f.cli("logs", "lg"); err == nil || !strings.Contains(err.Error(), "gone.log: no such file") {
		t.Errorf("a missing launcher log file: %v", err)
	}
}

// testLogsPod: on a cluster the launcher pod is found by the MPI
// operator's labels. envtest has no kubelet, so reading the log itself
// fails, with the API server's reason and the pod's name.
func testLogsPod(t *testing.T, f *kubeFixture) {
	c := f.campaign("default", "lp")
	f.partitionJob(c, 0, 0, nil)
	if _, _, err := f.cli("logs", "lp"); err == nil || !strings.Contains(err.Error(), "partition 0 (MPIJob lp-p0-r0, Starting) has no launcher pod now") {
		t.Errorf("no launcher pod: %v", err)
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "lp-p0-r0-launcher-x7k2p", Namespace: "default",
			Labels: map[string]string{labelMPIJobName: "lp-p0-r0", labelMPIJobRole: mpiLauncherRole}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "launcher", Image: "worker:test"}}},
	}
	f.create(pod.DeepCopy())
	if _, _, err := f.cli("logs", "lp"); err == nil || !strings.Contains(err.Error(), "pod lp-p0-r0-launcher-x7k2p (launcher of partition 0, MPIJob lp-p0-r0) is not scheduled yet") {
		t.Errorf("unscheduled launcher pod: %v", err)
	}
	// Scheduled to a node: the API server asks its kubelet for the log.
	if err := f.c.Delete(context.Background(), pod, client.GracePeriodSeconds(0)); err != nil {
		t.Fatal(err)
	}
	pod.Spec.NodeName = "node-1"
	f.create(pod)
	_, _, err := f.cli("logs", "lp")
	if err == nil || !strings.Contains(err.Error(), "log of pod lp-p0-r0-launcher-x7k2p (launcher of partition 0, MPIJob lp-p0-r0)") {
		t.Errorf("launcher pod log: %v", err)
	}
}

func testKubeconfigErrors(t *testing.T, f *kubeFixture) {
	root := testCLI("blastfleet")
	root.SetArgs([]string{"get"})
	root.SetOut(&strings.Builder{})
	root.SetErr(&strings.Builder{})
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none")) // nothing there: an empty config
	if err := root.Execute(); err == nil || !strings.Contains(err.Error(), "no kubeconfig found") || !strings.Contains(err.Error(), `"blastfleet dev up"`) {
		t.Errorf("no kubeconfig: %v", err)
	}
	if _, _, err := f.cli("get", "--context", "nope"); err == nil || !strings.Contains(err.Error(), `--context "nope" is not in the kubeconfig; its contexts: envtest`) {
		t.Errorf("unknown context: %v", err)
	}
	// A cluster that is down.
	down := writeKubeconfig(t, &rest.Config{Host: "https://127.0.0.1:1"}, "down")
	root = testCLI("blastfleet")
	root.SetArgs([]string{"get", "--kubeconfig", down})
	root.SetOut(&strings.Builder{})
	root.SetErr(&strings.Builder{})
	if err := root.Execute(); err == nil || !strings.Contains(err.Error(), "cannot reach the API server at https://127.0.0.1:1") {
		t.Errorf("cluster down: %v", err)
	}
}
