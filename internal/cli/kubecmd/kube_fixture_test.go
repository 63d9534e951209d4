package kubecmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/blastfleet/blastfleet/internal/plan/search"
	"path/filepath"
	"strings"
	"testing"
	"time"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/kubetest"
	"github.com/blastfleet/blastfleet/test/support/testenv"
	"github.com/blastfleet/blastfleet/test/support/testenv/testkit"
)

const (
	fxBucket = "blastfleet"
	fxSecret = "minio-credentials"
	fxDB     = "sprot"
)

// kubeFixture is a real API server (with the CRDs) and a real MinIO, and
// a kubeconfig pointing at the server, which the CLI loads as a user's.
// No operator runs: tests write campaign status as the operator would.
type kubeFixture struct {
	t          *testing.T
	c          client.Client
	minio      *testenv.MinIO
	kubeconfig string
}

func startKube(t *testing.T) *kubeFixture {
	t.Helper()
	env := kubetest.StartArgo(t) // Argo's CRDs too: campaigns of executor argo
	f := &kubeFixture{t: t, c: env.Client, minio: testenv.StartMinIO(t)}
	f.minio.MakeBucket(t, fxBucket)
	f.kubeconfig = writeKubeconfig(t, env.Config, "envtest")
	// The CLI must find its cluster through --kubeconfig only.
	t.Setenv("KUBECONFIG", "")
	f.create(testkit.MinIOSecret(f.minio, "default", fxSecret))
	f.create(&v1alpha1.BlastDatabase{
		ObjectMeta: metav1.ObjectMeta{Name: fxDB, Namespace: "default"},
		Spec: v1alpha1.BlastDatabaseSpec{
			Source: v1alpha1.ObjectReference{Key: "fasta/sprot.fa"}, Type: v1alpha1.DatabaseProtein,
			Shards: v1alpha1.Sharding{Count: ptr.To[int32](2)}, Storage: f.storage("databases"),
		},
	})
	return f
}

// writeKubeconfig writes a kubeconfig for cfg's server and user (envtest's
// admin, by client certificate) with one context, the current one.
func writeKubeconfig(t *testing.T, cfg *rest.Config, name string) string {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters[name] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos[name] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData, Token: cfg.BearerToken}
	kc.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name, Namespace: "default"}
	kc.CurrentContext = name
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// cli runs the CLI in-process against the fixture's cluster.
func (f *kubeFixture) cli(args ...string) (stdout, stderr string, err error) {
	return f.cliIn("", args...)
}

// cliIn is cli with stdin.
func (f *kubeFixture) cliIn(stdin string, args ...string) (stdout, stderr string, err error) {
	f.t.Helper()
	cmd := testCLI("blastfleet")
	var out, errb bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	cmd.SetIn(strings.NewReader(stdin))
	cmd.SetArgs(append(args, "--kubeconfig", f.kubeconfig))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = cmd.ExecuteContext(ctx)
	return out.String(), errb.String(), err
}

// mustCLI runs the CLI and fails the test on an error.
func (f *kubeFixture) mustCLI(args ...string) string {
	f.t.Helper()
	out, errOut, err := f.cli(args...)
	if err != nil {
		f.t.Fatalf("blastfleet %s: %v\nstderr: %s", strings.Join(args, " "), err, errOut)
	}
	return out
}

func (f *kubeFixture) create(obj client.Object) {
	f.t.Helper()
	if err := f.c.Create(context.Background(), obj); err != nil {
		f.t.Fatalf("creating %T %s: %v", obj, obj.GetName(), err)
	}
}

func (f *kubeFixture) namespace(name string) {
	f.t.Helper()
	f.create(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})
}

func (f *kubeFixture) storage(prefix string) v1alpha1.ObjectStorage {
	return v1alpha1.ObjectStorage{Endpoint: f.minio.Endpoint, Bucket: fxBucket, Prefix: prefix,
		CredentialsSecretRef: &v1alpha1.CredentialsSecretRef{Name: fxSecret}}
}

// campaign creates a campaign; the server fills in the defaults.
func (f *kubeFixture) campaign(ns, name string) *v1alpha1.SearchCampaign {
	f.t.Helper()
	c := &v1alpha1.SearchCampaign{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: v1alpha1.SearchCampaignSpec{
			DatabaseRef: v1alpha1.DatabaseReference{Name: fxDB},
			Queries:     v1alpha1.Queries{ObjectReference: v1alpha1.ObjectReference{Key: "queries/" + name + ".fa"}},
			Program:     "blastp",
			Output:      f.storage("campaigns"),
		},
	}
	f.create(c)
	return c
}

func (f *kubeFixture) get(ns, name string) *v1alpha1.SearchCampaign {
	f.t.Helper()
	var c v1alpha1.SearchCampaign
	if err := f.c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, &c); err != nil {
		f.t.Fatal(err)
	}
	return &c
}

// setStatus writes a campaign's status as the operator would.
func (f *kubeFixture) setStatus(ns, name string, edit func(*v1alpha1.SearchCampaignStatus)) *v1alpha1.SearchCampaign {
	f.t.Helper()
	c := f.get(ns, name)
	edit(&c.Status)
	if err := f.c.Status().Update(context.Background(), c); err != nil {
		f.t.Fatalf("status of %s: %v", name, err)
	}
	return c
}

// partitionJob creates a partition MPIJob of a campaign, labelled as the
// operator labels them, with annotations.
func (f *kubeFixture) partitionJob(c *v1alpha1.SearchCampaign, index, restart int, annotations map[string]string) *kubeflow.MPIJob {
	f.t.Helper()
	tmpl := func(name string) corev1.PodTemplateSpec {
		return corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: name, Image: "worker:test"}}}}
	}
	job := &kubeflow.MPIJob{
		ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("%s-p%d-r%d", c.Name, index, restart), Namespace: c.Namespace, Annotations: annotations,
			Labels: map[string]string{labelCampaign: c.Name, labelPartition: fmt.Sprint(index), labelRestart: fmt.Sprint(restart)},
		},
		Spec: kubeflow.MPIJobSpec{
			SlotsPerWorker: ptr.To[int32](1),
			MPIReplicaSpecs: map[kubeflow.MPIReplicaType]*kubeflow.ReplicaSpec{
				kubeflow.MPIReplicaTypeLauncher: {Replicas: ptr.To[int32](1), Template: tmpl("launcher")},
				kubeflow.MPIReplicaTypeWorker:   {Replicas: ptr.To[int32](2), Template: tmpl("worker")},
			},
		},
	}
	f.create(job)
	return job
}

// store is the MinIO bucket under prefix, as partitions write it.
func (f *kubeFixture) store(prefix string) objstore.Store {
	f.t.Helper()
	return testkit.MinIOStore(f.t, f.minio, fxBucket, prefix)
}

// ledgerWithCommits writes a campaign's plan (queries in chunks of two),
// commits the first `commit` chunks as partitions would, and returns what
// the committed results hold, in query order.
func (f *kubeFixture) ledgerWithCommits(ns, name string, queries, commit int) string {
	f.t.Helper()
	ctx := context.Background()
	st := f.store("campaigns/" + ns + "/" + name)
	plan := &ledger.Plan{
		Name:     name,
		Queries:  ledger.Queries{Location: fmt.Sprintf("s3://%s/queries/%s.fa", fxBucket, name), Count: queries},
		Database: ledger.Database{Location: fmt.Sprintf("s3://%s/databases/%s/%s", fxBucket, ns, fxDB), Name: fxDB, Type: "prot"},
		Search:   search.MustParse(search.Request{Program: "blastp", Outfmt: "6", MaxTargetSeqs: 500, TopHits: "auto"}),
		Chunks:   ledger.ChunkByQueries(queries, 2),
		Policy:   ledger.Policy{MaxAttempts: 3, LeaseSeconds: 30, RenewSeconds: 6, SkewSeconds: 1},
	}
	if err := ledger.WritePlan(ctx, st, plan); err != nil {
		f.t.Fatal(err)
	}
	l, err := ledger.Open(ctx, st, ledger.Options{})
	if err != nil {
		f.t.Fatal(err)
	}
	var all strings.Builder
	for i := 0; i < commit; i++ {
		lease, err := l.Acquire(ctx, "test-partition")
		if errors.Is(err, ledger.ErrNoChunk) {
			break
		}
		if err != nil {
			f.t.Fatal(err)
		}
		var b strings.Builder
		for q := lease.Range.First; q < lease.Range.End; q++ {
			fmt.Fprintf(&b, "q%d\ts%d\t1e-10\t50\n", q, q%3)
		}
		if err := lease.Commit(ctx, strings.NewReader(b.String()), int64(b.Len())); err != nil {
			f.t.Fatal(err)
		}
		all.WriteString(b.String())
	}
	return all.String()
}

// with is the fixture for a subtest: its helpers fail t.
func (f *kubeFixture) with(t *testing.T) *kubeFixture {
	g := *f
	g.t = t
	return &g
}
