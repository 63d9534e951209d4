package kubecmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
)

func testSubmitFlags(t *testing.T, f *kubeFixture) {
	out, errOut, err := f.cli("submit", "--name", "flags1", "--database", fxDB, "--queries", "s3://inputs/q.fa.gz",
		"--program", "blastp", "--outfmt", "6 qseqid sseqid evalue", "--max-target-seqs", "50", "--evalue", "1e-5",
		"--blast-option=-matrix=BLOSUM62", "--blast-option=-ungapped", "--chunk-queries", "10",
		"--partitions", "2", "--workers", "3", "--slots", "2", "--image", "worker:v1", "--queue", "team-a", "--suspend", "--deadline", "90m",
		"--cpu", "2500m", "--cpu-limit", "3", "--memory", "6Gi")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if out != "searchcampaign.blastfleet.io/flags1 created\n" || !strings.Contains(errOut, "blastfleet status flags1 --watch") {
		t.Errorf("stdout %q, stderr %q", out, errOut)
	}
	sp := f.get("default", "flags1").Spec
	checks := map[string][2]any{
		"database":      {sp.DatabaseRef.Name, fxDB},
		"queries":       {sp.Queries.Bucket + "/" + sp.Queries.Key, "inputs/q.fa.gz"},
		"program":       {string(sp.Program), "blastp"},
		"outfmt":        {sp.Outfmt, "6 qseqid sseqid evalue"},
		"maxTargetSeqs": {sp.MaxTargetSeqs, int32(50)},
		"evalue":        {sp.Evalue, "1e-5"},
		"options":       {len(sp.BlastOptions), 2},
		"chunking":      {*sp.Chunking.Queries, int32(10)},
		"partitions":    {sp.Partitions.Count*100 + sp.Partitions.Workers*10 + sp.Partitions.SlotsPerWorker, int32(232)},
		"image":         {sp.Partitions.Image, "worker:v1"},
		"queue":         {sp.QueueName, "team-a"},
		"suspend":       {sp.Suspend, true},
		"deadline":      {*sp.ActiveDeadlineSeconds, int64(5400)},
		"cpu":           {sp.Partitions.Resources.Requests.Cpu().String() + "/" + sp.Partitions.Resources.Limits.Cpu().String(), "2500m/3"},
		// Memory: request and limit alike.
		"memory": {sp.Partitions.Resources.Requests.Memory().String() + "/" + sp.Partitions.Resources.Limits.Memory().String(), "6Gi/6Gi"},
		// The output storage comes from the database's; the prefix is ours.
		"endpoint": {sp.Output.Endpoint, f.minio.Endpoint},
		"bucket":   {sp.Output.Bucket, fxBucket},
		"prefix":   {sp.Output.Prefix, "campaigns"},
		"secret":   {sp.Output.CredentialsSecretRef.Name, fxSecret},
		// Defaults the API server filled in.
		"maxAttempts": {sp.RetryPolicy.MaxAttempts, int32(3)},
		"topHits":     {sp.TopHits, "auto"},
		"region":      {sp.Output.Region, "us-east-1"},
	}
	for what, c := range checks {
		if c[0] != c[1] {
			t.Errorf("%s = %v, want %v", what, c[0], c[1])
		}
	}
	if o := sp.BlastOptions; len(o) == 2 && (o[0] != v1alpha1.BlastOption{Name: "matrix", Value: "BLOSUM62"} || o[1] != v1alpha1.BlastOption{Name: "ungapped"}) {
		t.Errorf("blast options %+v", o)
	}

	// A deadline to meet, as a time or a duration from the start.
	f.mustCLI("submit", "--name", "burst1", "--database", fxDB, "--queries", "s3://inputs/q.fa", "--program", "blastp",
		"--finish-by", "2026-11-26T14:00:00+01:00", "--min-partitions", "2", "--max-partitions", "6")
	sp = f.get("default", "burst1").Spec
	if d := sp.Deadline; d == nil || d.Time == nil || !d.Time.Time.Equal(time.Date(2026, 11, 26, 13, 0, 0, 0, time.UTC)) || d.After != nil ||
		sp.Partitions.Min == nil || *sp.Partitions.Min != 2 || sp.Partitions.Max == nil || *sp.Partitions.Max != 6 {
		t.Errorf("--finish-by at a time: deadline %+v, partitions %+v", sp.Deadline, sp.Partitions)
	}
	f.mustCLI("submit", "--name", "burst2", "--database", fxDB, "--queries", "s3://inputs/q.fa", "--program", "blastp", "--finish-by", "6h", "--max-partitions", "4")
	if d := f.get("default", "burst2").Spec.Deadline; d == nil || d.After == nil || d.After.Duration != 6*time.Hour || d.Time != nil {
		t.Errorf("--finish-by a duration: deadline %+v", d)
	}
	if _, errOut, err := f.cli("submit", "--name", "burst3", "--database", fxDB, "--queries", "s3://inputs/q.fa", "--program", "blastp", "--finish-by", "tomorrow", "--max-partitions", "4"); err == nil || !strings.Contains(errOut+err.Error(), "--finish-by \"tomorrow\"") {
		t.Errorf("--finish-by tomorrow: err %v, stderr %q", err, errOut)
	}

	// -taxidlist names a file here: it is checked, then uploaded beside
	// the queries as the object spec.taxidList names (any length).
	f.minio.Setenv(t)
	taxa := filepath.Join(t.TempDir(), "taxa.txt")
	if err := os.WriteFile(taxa, []byte("9606\n10090\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.mustCLI("submit", "--name", "taxa1", "--database", fxDB, "--queries", "s3://inputs/q.fa", "--program", "blastp", "--blast-option=-taxidlist="+taxa)
	sp = f.get("default", "taxa1").Spec
	const listKey = "campaigns/default/taxa1/lists/taxa.txt"
	if l := sp.TaxidList; len(sp.BlastOptions) != 0 || l == nil || l.Key != listKey || l.Bucket != "" || l.Negative {
		t.Errorf("-taxidlist: blast options %+v, taxidList %+v", sp.BlastOptions, l)
	}
	if got, _, err := f.store("").GetBytes(context.Background(), listKey); err != nil || string(got) != "9606\n10090\n" {
		t.Errorf("uploaded list %q, %v", got, err)
	}
	// One already in a bucket is named as it is.
	f.mustCLI("submit", "--name", "taxa2", "--database", fxDB, "--queries", "s3://inputs/q.fa", "--program", "blastp", "--blast-option=-negative_taxidlist=s3://lists/t.txt")
	if l := f.get("default", "taxa2").Spec.TaxidList; l == nil || l.Bucket != "lists" || l.Key != "t.txt" || !l.Negative {
		t.Errorf("-negative_taxidlist=s3://...: taxidList %+v", l)
	}
	// A bad line is refused, naming it, before anything is created.
	if err := os.WriteFile(taxa, []byte("9606\nmouse\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.cli("submit", "--name", "taxa3", "--database", fxDB, "--queries", "s3://inputs/q.fa", "--program", "blastp", "--blast-option=-taxidlist="+taxa); err == nil ||
		!strings.Contains(err.Error(), `taxa.txt line 2: "mouse" is not a taxid`) {
		t.Errorf("bad list: %v", err)
	}
	// Beside inline taxids: the API server refuses the second filter.
	if _, _, err := f.cli("submit", "--name", "taxa4", "--database", fxDB, "--queries", "s3://inputs/q.fa", "--program", "blastp",
		"--blast-option=-negative_taxidlist=s3://lists/t.txt", "--blast-option=-taxids=9606"); err == nil || !strings.Contains(err.Error(), "taxidList and the taxids or negative_taxids blast option exclude each other") {
		t.Errorf("list and taxids: %v", err)
	}
	// -negative_seqidlist too: checked, uploaded, named by spec.seqidList.
	ids := filepath.Join(t.TempDir(), "ids.txt")
	if err := os.WriteFile(ids, []byte("XP_000001.1\nref|XP_000002.1|\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.mustCLI("submit", "--name", "seqids1", "--database", fxDB, "--queries", "s3://inputs/q.fa", "--program", "blastp", "--blast-option=-negative_seqidlist="+ids)
	sp = f.get("default", "seqids1").Spec
	const idsKey = "campaigns/default/seqids1/lists/ids.txt"
	if l := sp.SeqidList; len(sp.BlastOptions) != 0 || l == nil || l.Key != idsKey || !l.Negative {
		t.Errorf("-negative_seqidlist: blast options %+v, seqidList %+v", sp.BlastOptions, l)
	}
	if got, _, err := f.store("").GetBytes(context.Background(), idsKey); err != nil || !strings.Contains(string(got), "XP_000001.1") {
		t.Errorf("uploaded sequence id list %q, %v", got, err)
	}
	// An empty list is refused here, as BLAST+ refuses it.
	if err := os.WriteFile(ids, []byte("# none\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.cli("submit", "--name", "seqids2", "--database", fxDB, "--queries", "s3://inputs/q.fa", "--program", "blastp", "--blast-option=-seqidlist="+ids); err == nil ||
		!strings.Contains(err.Error(), "lists no sequence id") {
		t.Errorf("empty sequence id list: %v", err)
	}
	// Beside a taxid list: the API server refuses it, as BLAST+ does.
	if _, _, err := f.cli("submit", "--name", "seqids3", "--database", fxDB, "--queries", "s3://inputs/q.fa", "--program", "blastp",
		"--blast-option=-seqidlist=s3://lists/ids.txt", "--blast-option=-taxidlist=s3://lists/t.txt"); err == nil || !strings.Contains(err.Error(), "seqidList and taxidList exclude each other") {
		t.Errorf("seqidlist and taxidlist: %v", err)
	}

	// Only what was given is sent: the rest are the server's defaults.
	f.mustCLI("submit", "--name", "flags2", "--database", fxDB, "--queries", "s3://inputs/q.fa", "--program", "blastn")
	sp = f.get("default", "flags2").Spec
	if sp.Queries.Bucket != "inputs" || sp.Queries.Key != "q.fa" || sp.Partitions.Count != 1 || sp.Partitions.Workers != 2 ||
		sp.Chunking.Letters == nil || *sp.Chunking.Letters != 1000000 || sp.Outfmt != "6" || sp.MaxTargetSeqs != 500 || sp.Suspend ||
		sp.Partitions.Resources.Requests != nil || sp.Partitions.Resources.Limits != nil {
		t.Errorf("defaults: %+v", sp)
	}
}

const campaignYAML = `# a campaign file, as users write them
apiVersion: blastfleet.io/v1alpha1
kind: SearchCampaign
metadata:
  name: %NAME%
spec:
  databaseRef:
    name: sprot
  queries:
    key: inputs/human.fa.gz
  program: blastp
  maxTargetSeqs: 50
  chunking:
    queries: 500
  partitions:
    count: 3
  output:
    endpoint: %ENDPOINT%
    bucket: blastfleet
    prefix: campaigns
    credentialsSecretRef:
      name: minio-credentials
`

func campaignFile(t *testing.T, f *kubeFixture, name string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name+".yaml")
	data := strings.NewReplacer("%NAME%", name, "%ENDPOINT%", f.minio.Endpoint).Replace(campaignYAML)
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func testSubmitFile(t *testing.T, f *kubeFixture) {
	path := campaignFile(t, f, "fromfile")
	if out := f.mustCLI("submit", "-f", path); out != "searchcampaign.blastfleet.io/fromfile created\n" {
		t.Errorf("stdout %q", out)
	}
	sp := f.get("default", "fromfile").Spec
	if sp.Partitions.Count != 3 || sp.Partitions.Workers != 2 || sp.MaxTargetSeqs != 50 || *sp.Chunking.Queries != 500 || sp.Queries.Key != "inputs/human.fa.gz" {
		t.Errorf("spec from the file: %+v", sp)
	}

	// Standard input, into another namespace.
	f.namespace("fromstdin")
	data, _ := os.ReadFile(campaignFile(t, f, "piped"))
	if _, errOut, err := f.cliIn(string(data), "submit", "-f", "-", "-n", "fromstdin"); err != nil {
		t.Fatalf("-f -: %v\n%s", err, errOut)
	}
	f.get("fromstdin", "piped")

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"submit", "-f", path, "--program", "blastn"}, "-f and --program exclude each other"},
		{[]string{"submit", "-f", filepath.Join(t.TempDir(), "none.yaml")}, "no such file"},
		{[]string{"submit", "-f", writeTemp(t, "apiVersion: v1\nkind: Secret\nmetadata:\n  name: x\n")}, "document 1 is a Secret"},
		{[]string{"submit", "-f", path, "-n", "fromstdin"}, ""}, // the file names no namespace: -n applies
		{[]string{"submit", "-f", writeTemp(t, "apiVersion: blastfleet.io/v1alpha1\nkind: SearchCampaign\nmetadata:\n  name: x\n  namespace: a\n"), "-n", "b"}, `namespace "a" does not match -n "b"`},
	} {
		_, _, err := f.cli(tc.args...)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%v: %v", tc.args, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err %v, want %q", tc.args, err, tc.want)
		}
	}
}

func writeTemp(t *testing.T, data string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func testSubmitDryRun(t *testing.T, f *kubeFixture) {
	args := []string{"submit", "--name", "dry", "--database", fxDB, "--queries", "s3://inputs/q.fa", "--program", "blastp", "--partitions", "2"}
	out := f.mustCLI(append(args, "--dry-run")...)
	var c v1alpha1.SearchCampaign
	if err := yaml.Unmarshal([]byte(out), &c); err != nil || c.Kind != "SearchCampaign" || c.Spec.Partitions.Count != 2 || c.Spec.Output.Bucket != fxBucket {
		t.Errorf("client dry run: %v\n%s", err, out)
	}
	if strings.Contains(out, "maxAttempts") {
		t.Errorf("client dry run shows server defaults:\n%s", out)
	}
	out = f.mustCLI(append(args, "--dry-run=server")...)
	c = v1alpha1.SearchCampaign{}
	if err := yaml.Unmarshal([]byte(out), &c); err != nil || c.Spec.RetryPolicy.MaxAttempts != 3 || c.Spec.Partitions.Workers != 2 {
		t.Errorf("server dry run lacks the defaults: %v\n%s", err, out)
	}
	err := f.c.Get(context.Background(), client.ObjectKey{Namespace: "default", Name: "dry"}, &c)
	if !apierrors.IsNotFound(err) {
		t.Errorf("a dry run created the campaign: %v", err)
	}
	if _, _, err := f.cli(append(args, "--dry-run=maybe")...); err == nil || !strings.Contains(err.Error(), "client, server or none") {
		t.Errorf("--dry-run=maybe: %v", err)
	}
}

// testSubmitRefused: the API server's own refusal, naming the field.
func testSubmitRefused(t *testing.T, f *kubeFixture) {
	base := []string{"submit", "--name", "bad", "--database", fxDB, "--queries", "s3://inputs/q.fa"}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--program", "blastp", "--partitions", "0"}, []string{`SearchCampaign.blastfleet.io "bad" is invalid`, "spec.partitions.count", "greater than or equal to 1"}},
		{[]string{"--program", "blastq"}, []string{"spec.program", `Unsupported value: "blastq"`}},
		{[]string{"--program", "blastp", "--blast-option=-ungapped=1"}, []string{"spec.blastOptions[0]", "-ungapped is a flag and takes no value"}},
		{[]string{"--program", "blastp", "--cpu", "4", "--cpu-limit", "2"}, []string{"spec.partitions.resources.requests", "partitions.resources.requests.cpu must not be above partitions.resources.limits.cpu"}},
		{[]string{"--program", "blastp", "--memory", "lots"}, []string{`--memory "lots"`, "positive quantity"}},
		{[]string{"--program", "blastp", "--cpu", "0"}, []string{`--cpu "0"`, "positive quantity"}},
		{[]string{"--program", "blastp", "--chunk-letters", "5", "--chunk-queries", "5"}, []string{"chunk-letters", "chunk-queries"}},
		{[]string{}, []string{"--program required"}},
	} {
		args := append(append([]string{}, base...), tc.args...)
		_, errOut, err := f.cli(args...)
		for _, w := range tc.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%v: err %v, want %q", tc.args, err, w)
			}
		}
		if strings.HasPrefix(tc.want[0], "spec.") || strings.HasPrefix(tc.want[0], "SearchCampaign") {
			if strings.Contains(errOut, "Usage:") {
				t.Errorf("%v: usage printed for the server's refusal", tc.args)
			}
		}
	}
	var c v1alpha1.SearchCampaign
	if err := f.c.Get(context.Background(), client.ObjectKey{Namespace: "default", Name: "bad"}, &c); !apierrors.IsNotFound(err) {
		t.Errorf("a refused campaign exists: %v", err)
	}
}

// The queries on a store of their own (a public bucket elsewhere, read
// anonymously, behind a private CA), the pods on a service account, the
// output's CA: each flag reaches its field, and the API server accepts
// the result; a local file with --queries-* flags is refused.
func testSubmitStores(t *testing.T, f *kubeFixture) {
	_, errOut, err := f.cli("submit", "--name", "stores1", "--database", fxDB, "--program", "blastp",
		"--queries", "s3://ncbi-public/sets/q.fa", "--queries-endpoint", "https://s3.example.org", "--queries-anonymous",
		"--queries-ca-configmap", "corp-ca:bundle.pem", "--service-account", "blast-irsa", "--ca-configmap", "out-ca")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	sp := f.get("default", "stores1").Spec
	q := sp.Queries
	if q.Storage == nil || q.Bucket != "" || q.Key != "sets/q.fa" || q.Storage.Bucket != "ncbi-public" || q.Storage.Endpoint != "https://s3.example.org" ||
		!q.Storage.Anonymous || q.Storage.CredentialsSecretRef != nil || q.Storage.CABundle == nil || *q.Storage.CABundle != (v1alpha1.ConfigMapKeyRef{Name: "corp-ca", Key: "bundle.pem"}) {
		t.Errorf("queries %+v storage %+v", q, q.Storage)
	}
	if sp.Partitions.ServiceAccountName != "blast-irsa" || sp.Output.CABundle == nil || *sp.Output.CABundle != (v1alpha1.ConfigMapKeyRef{Name: "out-ca", Key: "ca.crt"}) {
		t.Errorf("service account %q, output CA %+v", sp.Partitions.ServiceAccountName, sp.Output.CABundle)
	}
	if sp.Output.CredentialsSecretRef == nil || sp.Output.CredentialsSecretRef.Name != fxSecret {
		t.Errorf("output Secret %+v, want the database's", sp.Output.CredentialsSecretRef)
	}

	local := writeTemp(t, ">q\nMKV\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--queries", "s3-typo/q.fa", "--queries-anonymous"}, "--queries s3-typo/q.fa: no such file here"},
		{[]string{"--queries", "gs://b/q.fa", "--queries-anonymous"}, `--queries "gs://b/q.fa": want s3://bucket/key`},
		{[]string{"--queries", "s3://b/q.fa", "--queries-anonymous", "--queries-credentials-secret", "s"}, "exclude each other"},
		{[]string{"--queries", local, "--queries-endpoint", "https://s3.example.org"}, "is a file here"},
	} {
		args := append([]string{"submit", "--name", "stores2", "--database", fxDB, "--program", "blastp"}, tc.args...)
		if _, errOut, err := f.cli(args...); err == nil || !strings.Contains(errOut+err.Error(), tc.want) {
			t.Errorf("%v: %v %s, want %q", tc.args, err, errOut, tc.want)
		}
	}
}
