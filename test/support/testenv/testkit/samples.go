package testkit

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers"
	"github.com/blastfleet/blastfleet/internal/devstack"
	"github.com/blastfleet/blastfleet/test/support/refsearch"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// ReadmeStackHeading is README.md's section whose block brings up a stack
// and applies config/samples to it.
const ReadmeStackHeading = "The local stack"

// SamplesTimes are how long after README's kubectl apply the sample
// database was Ready and the sample campaign Complete.
type SamplesTimes struct{ Ready, Complete time.Duration }

// ReadmeSamples runs the kubectl lines of README's "The local stack"
// block, as written and from the repository root, on st (the process
// stack or the one-node cluster): config/samples must apply unchanged,
// the sample database get Ready and the sample campaign Complete within
// timeout each, with the bytes blastp prints for the sample queries on
// the unsharded sample database in BLAST+'s batches; the block's
// blastfleet results line must then write those bytes. What it applied is
// deleted when the test ends, so a shared cluster is left as it was.
func ReadmeSamples(t *testing.T, st *devstack.State, timeout time.Duration) SamplesTimes {
	t.Helper()
	testenv.RequireTools(t, "kubectl", "blastp", "makeblastdb")
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	cmds := testenv.ReadmeProgram(t, root, ReadmeStackHeading, "kubectl")
	apply := slices.IndexFunc(cmds, func(c []string) bool { return strings.Join(c, " ") == "apply -k config/samples/" })
	if apply < 0 {
		t.Fatalf("README's %q block does not apply -k config/samples/: %q", ReadmeStackHeading, cmds)
	}
	kubectl := func(args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "kubectl", args...)
		cmd.Dir, cmd.Env = root, append(os.Environ(), "KUBECONFIG="+st.Kubeconfig)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	kc := Client(t, st.Kubeconfig)
	var db *v1alpha1.BlastDatabase
	var c *v1alpha1.SearchCampaign
	t.Cleanup(func() { deleteSamples(t, kc, kubectl, db, c) })
	var t0 time.Time
	for i, c := range cmds {
		if i == apply {
			t0 = time.Now()
		}
		out, err := kubectl(c...)
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(c, " "), err, out)
		}
		t.Logf("kubectl %s:\n%s", strings.Join(c, " "), out)
	}

	db, c = appliedSamples(t, kc)
	var times SamplesTimes
	waitFor(t, kc, db, timeout, func() (bool, string) {
		return db.Status.Phase == v1alpha1.DatabaseReady, string(db.Status.Phase)
	}, func() bool { return db.Status.Phase == v1alpha1.DatabaseFailed })
	times.Ready = time.Since(t0)
	t.Logf("database %s Ready %s after kubectl apply", db.Name, times.Ready.Round(time.Second))
	waitFor(t, kc, c, timeout, func() (bool, string) {
		return c.Status.Phase == v1alpha1.CampaignComplete, string(c.Status.Phase)
	}, func() bool { return c.Status.Phase == v1alpha1.CampaignFailed })
	times.Complete = time.Since(t0)
	t.Logf("campaign %s Complete %s after kubectl apply", c.Name, times.Complete.Round(time.Second))

	want := sampleReference(t, c)
	if len(want) == 0 {
		t.Fatal("blastp finds nothing for the sample queries: the samples show no hits")
	}
	got := readResult(t, st, c)
	if !bytes.Equal(got, want) {
		t.Fatalf("the sample campaign's result differs from blastp on the unsharded sample database (%d vs %d bytes): %s",
			len(got), len(want), refsearch.Diff(got, want))
	}
	t.Logf("result: %d lines, identical to blastp's", bytes.Count(got, []byte("\n")))
	readmeResults(t, st, root, want)
	return times
}

// appliedSamples are the database and campaign config/samples made
// (labelled as samples), one of each.
func appliedSamples(t *testing.T, kc client.Client) (*v1alpha1.BlastDatabase, *v1alpha1.SearchCampaign) {
	t.Helper()
	var dbs v1alpha1.BlastDatabaseList
	var scs v1alpha1.SearchCampaignList
	for _, l := range []client.ObjectList{&dbs, &scs} {
		if err := kc.List(context.Background(), l, client.MatchingLabels{"app.kubernetes.io/component": "samples"}); err != nil {
			t.Fatal(err)
		}
	}
	if len(dbs.Items) != 1 || len(scs.Items) != 1 {
		t.Fatalf("the samples made %d databases and %d campaigns; want one of each", len(dbs.Items), len(scs.Items))
	}
	return &dbs.Items[0], &scs.Items[0]
}

// deleteSamples deletes what config/samples made, as it was applied, and
// waits until no pod of the sample database or campaign is left: the
// objects go at once, their Jobs' and MPIJobs' pods only after the
// garbage collector and the Job controller (its tracking finalizer) are
// done, and on a shared cluster those pods would still hold the node's
// CPU and show in what the next test counts.
func deleteSamples(t *testing.T, kc client.Client, kubectl func(...string) (string, error), db *v1alpha1.BlastDatabase, c *v1alpha1.SearchCampaign) {
	t.Helper()
	if out, err := kubectl("delete", "-k", "config/samples/", "--ignore-not-found", "--wait", "--timeout=3m"); err != nil {
		t.Errorf("kubectl delete -k config/samples/: %v\n%s", err, out)
		return
	}
	if db == nil || c == nil {
		return
	}
	sels := []client.MatchingLabels{{controllers.LabelDatabase: db.Name}, {controllers.LabelCampaign: c.Name}}
	var left []string
	for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); time.Sleep(time.Second) {
		left = left[:0]
		for _, sel := range sels {
			var pods corev1.PodList
			if err := kc.List(context.Background(), &pods, client.InNamespace(c.Namespace), sel); err != nil {
				t.Errorf("listing the samples' pods: %v", err)
				return
			}
			for _, p := range pods.Items {
				left = append(left, p.Name)
			}
		}
		if len(left) == 0 {
			return
		}
	}
	t.Errorf("pods of the deleted samples still there after 3m: %v", left)
}

// readResult reads the campaign's status.result from the stack's bucket.
func readResult(t *testing.T, st *devstack.State, c *v1alpha1.SearchCampaign) []byte {
	t.Helper()
	store, err := st.Store("")
	if err != nil {
		t.Fatal(err)
	}
	key, ok := strings.CutPrefix(c.Status.Result, "s3://"+st.MinIO.Bucket+"/")
	if !ok {
		t.Fatalf("status.result %q is not in the stack's bucket %s", c.Status.Result, st.MinIO.Bucket)
	}
	got, _, err := store.GetBytes(context.Background(), key)
	if err != nil {
		t.Fatalf("reading the result %s: %v", c.Status.Result, err)
	}
	return got
}

// readmeResults runs the block's blastfleet results line, with the
// variables blastfleet dev env prints, in a directory of its own (it
// names a file to write), and wants want in that file.
func readmeResults(t *testing.T, st *devstack.State, root string, want []byte) {
	t.Helper()
	results := testenv.ReadmeProgram(t, root, ReadmeStackHeading, "bin/blastfleet")
	results = slices.DeleteFunc(results, func(c []string) bool { return c[0] != "results" })
	if len(results) != 1 {
		t.Fatalf("README's %q block has %d blastfleet results lines, want 1", ReadmeStackHeading, len(results))
	}
	dir := t.TempDir()
	cmd := exec.Command(testenv.BuiltBinaries(t).CLI, results[0]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "KUBECONFIG="+st.Kubeconfig, "AWS_ACCESS_KEY_ID="+st.MinIO.AccessKey,
		"AWS_SECRET_ACCESS_KEY="+st.MinIO.SecretKey, "AWS_REGION="+st.MinIO.Region, "AWS_ENDPOINT_URL="+st.MinIO.Endpoint)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("blastfleet %s: %v\n%s", strings.Join(results[0], " "), err, out)
	}
	i := slices.Index(results[0], "--output-file")
	if i < 0 || i+1 == len(results[0]) {
		t.Fatalf("README's results line names no --output-file: %q", results[0])
	}
	file, err := os.ReadFile(filepath.Join(dir, results[0][i+1]))
	if err != nil || !bytes.Equal(file, want) {
		t.Errorf("blastfleet %s wrote %d bytes (%v); want blastp's %d", strings.Join(results[0], " "), len(file), err, len(want))
	}
}

// waitFor polls obj until done, failing at once when failed.
func waitFor(t *testing.T, kc client.Client, obj client.Object, timeout time.Duration, done func() (bool, string), failed func() bool) {
	t.Helper()
	var last string
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(time.Second) {
		if err := kc.Get(context.Background(), client.ObjectKeyFromObject(obj), obj); err != nil {
			t.Fatal(err)
		}
		ok, state := done()
		if ok {
			return
		}
		if failed() {
			t.Fatalf("%s %s failed: %+v", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName(), obj)
		}
		last = state
	}
	t.Fatalf("%s not done after %s (last %q): %+v", obj.GetName(), timeout, last, obj)
}

// sampleReference is what BLAST+ prints for the stack's sample queries on
// the unsharded sample database, with the campaign's own settings, in
// BLAST+'s own batches.
func sampleReference(t *testing.T, c *v1alpha1.SearchCampaign) []byte {
	t.Helper()
	dir := t.TempDir()
	dbGz, qGz := devstack.SampleInputs()
	for name, gz := range map[string][]byte{"db.fa": dbGz, "queries.fa": qGz} {
		r, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	db, err := refsearch.MakeDB(ctx, filepath.Join(dir, "db.fa"), "prot", dir)
	if err != nil {
		t.Fatal(err)
	}
	s := c.Spec
	args := []string{"-max_target_seqs", strconv.Itoa(int(s.MaxTargetSeqs)), "-evalue", s.Evalue}
	for _, o := range s.BlastOptions {
		args = append(args, "-"+o.Name, o.Value)
	}
	out, err := refsearch.SearchBatches(ctx, string(s.Program), db, filepath.Join(dir, "queries.fa"), s.Outfmt, args...)
	if err != nil {
		t.Fatalf("blastp on the unsharded sample database: %v", err)
	}
	return out
}
