package cli

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

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/devstack"
	"github.com/blastfleet/blastfleet/test/support/refsearch"
	"github.com/blastfleet/blastfleet/test/support/testenv"
	"github.com/blastfleet/blastfleet/test/support/testenv/testkit"
)

// TestReadmeSamplesLocalStack runs the kubectl commands of README's "The
// local stack" block, as written and from the repository root, on a
// stack brought up as blastfleet dev up brings it: config/samples must
// apply unchanged, the sample database build and the sample campaign
// complete, with the bytes blastp prints for the sample queries on the
// unsharded sample database.
func TestReadmeSamplesLocalStack(t *testing.T) {
	testenv.RequireTools(t, "kubectl", "blastp", "makeblastdb")
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	cmds := readmeCommands(t, root, "The local stack")
	var applied bool
	for _, c := range cmds {
		applied = applied || strings.Join(c, " ") == "apply -k config/samples/"
	}
	if !applied {
		t.Fatalf("README's local stack block does not apply -k config/samples/: %q", cmds)
	}

	st := testkit.UpStack(t, testkit.StackOptions{PATH: os.Getenv("PATH"), Lifetime: 15 * time.Minute,
		Logs: []string{"operator", "supervisor"}, LogLines: 40})
	p := &plugin{t: t, env: append(os.Environ(), "KUBECONFIG="+st.Kubeconfig), dir: root}
	for _, c := range cmds {
		out, errOut, code := p.kubectl(c...)
		if code != 0 {
			t.Fatalf("kubectl %s: exit %d\n%s%s", strings.Join(c, " "), code, out, errOut)
		}
		t.Logf("kubectl %s:\n%s", strings.Join(c, " "), out)
	}

	kc := testkit.Client(t, st.Kubeconfig)
	ctx := context.Background()
	var dbs v1alpha1.BlastDatabaseList
	var scs v1alpha1.SearchCampaignList
	for _, l := range []client.ObjectList{&dbs, &scs} {
		if err := kc.List(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	if len(dbs.Items) != 1 || len(scs.Items) != 1 {
		t.Fatalf("the samples made %d databases and %d campaigns; want one of each", len(dbs.Items), len(scs.Items))
	}
	db, c := &dbs.Items[0], &scs.Items[0]
	t0 := time.Now()
	wait(t, kc, db, 5*time.Minute, func() (bool, string) {
		return db.Status.Phase == v1alpha1.DatabaseReady, string(db.Status.Phase)
	}, func() bool { return db.Status.Phase == v1alpha1.DatabaseFailed })
	t.Logf("database %s Ready %s after kubectl apply", db.Name, time.Since(t0).Round(time.Second))
	t0 = time.Now()
	wait(t, kc, c, 5*time.Minute, func() (bool, string) {
		return c.Status.Phase == v1alpha1.CampaignComplete, string(c.Status.Phase)
	}, func() bool { return c.Status.Phase == v1alpha1.CampaignFailed })
	t.Logf("campaign %s Complete %s after its database was Ready", c.Name, time.Since(t0).Round(time.Second))

	want := sampleReference(t, c)
	store, err := st.Store("")
	if err != nil {
		t.Fatal(err)
	}
	key, ok := strings.CutPrefix(c.Status.Result, "s3://"+st.MinIO.Bucket+"/")
	if !ok {
		t.Fatalf("status.result %q is not in the stack's bucket %s", c.Status.Result, st.MinIO.Bucket)
	}
	got, _, err := store.GetBytes(ctx, key)
	if err != nil {
		t.Fatalf("reading the result %s: %v", c.Status.Result, err)
	}
	if len(want) == 0 {
		t.Fatal("blastp finds nothing for the sample queries: the samples show no hits")
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the sample campaign's result differs from blastp on the unsharded sample database (%d vs %d bytes): %s",
			len(got), len(want), refsearch.Diff(got, want))
	}
	t.Logf("result: %d lines, identical to blastp's", bytes.Count(got, []byte("\n")))

	// The block's blastfleet results line, with the variables blastfleet
	// dev env prints, in a directory of its own (it names a file to write).
	results := readmeProgram(t, root, "The local stack", "bin/blastfleet")
	results = slices.DeleteFunc(results, func(c []string) bool { return c[0] != "results" })
	if len(results) != 1 {
		t.Fatalf("README's local stack block has %d blastfleet results lines, want 1", len(results))
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

// wait polls obj until done, failing at once when failed.
func wait(t *testing.T, kc client.Client, obj client.Object, timeout time.Duration, done func() (bool, string), failed func() bool) {
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
// the unsharded sample database, with the campaign's own settings.
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
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
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
		t.Fatal(err)
	}
	return out
}
