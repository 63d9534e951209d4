package hpc_e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/devstack"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/refsearch"
	"github.com/blastfleet/blastfleet/test/support/testenv"
	"github.com/blastfleet/blastfleet/test/support/testenv/testkit"
)

// TestSiteJoinsClusterCampaign: on the local stack (a real API server,
// the operator, MinIO, the local runner for MPIJobs) a SearchCampaign runs
// one MPIJob partition, and a site joins it by the campaign's name with
// "blastfleet hpc submit NAME": the Slurm job and the MPIJob work it at
// once. The campaign completes with BLAST's result; its status.sites and
// the operator's metrics show both sites.
func TestSiteJoinsClusterCampaign(t *testing.T) {
	requireSlurm(t)
	f := getFixture(t)
	s := &site{t: t, f: f, bins: testenv.BuiltBinaries(t)}
	slow := slowBlast(t, "0.6")
	st := testkit.UpStack(t, testkit.StackOptions{PATH: slow,
		Lifetime: 10 * time.Minute, Logs: []string{"supervisor", "operator"}, LogLines: 30})
	kc := testkit.Client(t, st.Kubeconfig)
	store, err := st.Store("")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	for key, path := range map[string]string{"hpc/db.fa": f.fasta, "hpc/q.fa": f.queries} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.Put(ctx, key, bytes.NewReader(data), int64(len(data))); err != nil {
			t.Fatal(err)
		}
	}
	storage := fmt.Sprintf("    endpoint: %s\n    bucket: %s\n    prefix: %%s\n    credentialsSecretRef:\n      name: %s",
		st.MinIO.Endpoint, st.MinIO.Bucket, devstack.SecretName)
	create(t, kc, fmt.Sprintf(`apiVersion: blastfleet.io/v1alpha1
kind: BlastDatabase
metadata: {name: families, namespace: default}
spec:
  source: {key: hpc/db.fa}
  type: nucl
  shards: {count: 3}
  storage:
%s
`, fmt.Sprintf(storage, "databases")), &v1alpha1.BlastDatabase{})
	create(t, kc, fmt.Sprintf(`apiVersion: blastfleet.io/v1alpha1
kind: SearchCampaign
metadata: {name: burst, namespace: default}
spec:
  databaseRef: {name: families}
  queries: {key: hpc/q.fa}
  program: blastn
  outfmt: "6 std"
  chunking: {queries: 2}
  # each query alone: the queries are one BLAST+ batch, and the sites
  # share the campaign by its many small chunks
  batching: alone
  partitions: {count: 1, workers: 1, slotsPerWorker: 2}
  output:
%s
`, fmt.Sprintf(storage, "campaigns")), &v1alpha1.SearchCampaign{})
	var c v1alpha1.SearchCampaign
	get := func() *v1alpha1.SearchCampaign {
		if err := kc.Get(ctx, client.ObjectKey{Namespace: "default", Name: "burst"}, &c); err != nil {
			t.Fatal(err)
		}
		if c.Status.Phase == v1alpha1.CampaignFailed {
			t.Fatalf("campaign failed: %+v", c.Status.Conditions)
		}
		return &c
	}
	waitUntil(t, 4*time.Minute, "the campaign Running with a chunk committed", func() bool {
		return get().Status.Phase == v1alpha1.CampaignRunning && c.Status.Chunks.Committed > 0
	})

	// The site's user: the stack's store credentials and Slurm, nothing of
	// the cluster's but a kubeconfig to find the campaign by name.
	s.env = append(append(append(os.Environ(), testenv.MPIEnv...), slurm.Env...),
		"AWS_ACCESS_KEY_ID="+st.MinIO.AccessKey, "AWS_SECRET_ACCESS_KEY="+st.MinIO.SecretKey, "AWS_SESSION_TOKEN=",
		"AWS_ENDPOINT_URL="+st.MinIO.Endpoint, "AWS_REGION="+st.MinIO.Region, "PATH="+slow)
	dir := t.TempDir()
	s.jobDirs = append(s.jobDirs, dir)
	submitted := time.Now()
	out := s.cliIn(dir, "hpc", "submit", "burst", "--kubeconfig", st.Kubeconfig, "-n", "default", "--site", "hpc-a",
		"--nodes", "1", "--ntasks-per-node", "2", "--engine", s.bins.Engine)
	if !strings.HasPrefix(out, "submitted job ") {
		t.Fatalf("hpc submit: %s", out)
	}
	waitUntil(t, 6*time.Minute, "the campaign Complete", func() bool { return get().Status.Phase == v1alpha1.CampaignComplete })
	t.Logf("campaign complete %v after the site joined; sites %s", time.Since(submitted).Round(time.Second), c.Status.SitesSummary)
	sites := map[string]v1alpha1.SiteProgress{}
	for _, sp := range c.Status.Sites {
		sites[sp.Name] = sp
	}
	if sites["hpc-a"].ChunksCommitted == 0 || sites["cloud"].ChunksCommitted == 0 ||
		sites["hpc-a"].ChunksCommitted+sites["cloud"].ChunksCommitted != c.Status.Chunks.Committed {
		t.Errorf("status.sites %+v: want both sites with commits adding up to %d\n%s", c.Status.Sites, c.Status.Chunks.Committed, s.jobLogs())
	}
	metrics := operatorMetrics(t, st)
	for _, site := range []string{"cloud", "hpc-a"} {
		if !strings.Contains(metrics, fmt.Sprintf(`blastfleet_campaign_site_queries_done{campaign="burst",namespace="default",site=%q}`, site)) {
			t.Errorf("the operator's metrics lack site %s's progress", site)
		}
	}
	var got bytes.Buffer
	if err := ledger.StreamResults(ctx, mustPrefix(t, st, c.Status.Location), &got); err != nil {
		t.Fatal(err)
	}
	if d := refsearch.Diff(got.Bytes(), f.want); d != "" {
		t.Fatalf("the campaign's result differs from BLAST's: %s", d)
	}
}

// slowBlast is a PATH whose blastn sleeps delay seconds first.
func slowBlast(t *testing.T, delay string) string {
	t.Helper()
	path, err := testenv.SlowBLASTPath(t.TempDir(), delay)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

func create(t *testing.T, c client.Client, manifest string, obj client.Object) {
	t.Helper()
	if err := yaml.UnmarshalStrict([]byte(manifest), obj); err != nil {
		t.Fatalf("%v\n%s", err, manifest)
	}
	if err := c.Create(context.Background(), obj); err != nil {
		t.Fatalf("creating %s: %v", obj.GetName(), err)
	}
}

func waitUntil(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, within)
		}
		time.Sleep(time.Second)
	}
}

// operatorMetrics is the operator's /metrics page.
func operatorMetrics(t *testing.T, st *devstack.State) string {
	t.Helper()
	for _, c := range st.Components {
		if c.Name != "operator" {
			continue
		}
		resp, err := http.Get(c.URL)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	t.Fatal("the stack has no operator component")
	return ""
}

// mustPrefix is the stack's store at a campaign location in its bucket.
func mustPrefix(t *testing.T, st *devstack.State, location string) objstore.Store {
	t.Helper()
	prefix := strings.TrimPrefix(location, "s3://"+st.MinIO.Bucket+"/")
	s, err := st.Store(prefix)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
