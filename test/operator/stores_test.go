package operator

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers"
	"github.com/blastfleet/blastfleet/internal/operator/policy"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/kubetest"
	"github.com/blastfleet/blastfleet/test/support/synth"
	"github.com/blastfleet/blastfleet/test/support/testenv"
	"github.com/blastfleet/blastfleet/test/support/testenv/testkit"
)

// TestSeparateStores runs a campaign whose three stores are three MinIO
// servers: the database on a private HTTPS endpoint whose CA only a
// caBundle ConfigMap names, with its own Secret; the queries in a public
// bucket of another server, read anonymously; the ledger and result on
// the third with the campaign's Secret. The operator (sharding, reading
// the database's source), the sharding and planning Jobs and the MPI
// ranks each reach every store with that store's own endpoint,
// credentials and CA, and the result equals blastp of the unsharded
// database. Until the ConfigMap exists the database waits, naming it.
func TestSeparateStores(t *testing.T) {
	t.Parallel() // its own API server, MinIO and operator
	h, dir := newRunningHarness(t)
	ctx := context.Background()
	db, queries := synthProteins(t, synth.Options{Seed: 11, Families: 8, Members: 5, MinLen: 80, MaxLen: 180, Queries: 7, Unrelated: 10})

	// The database's private endpoint, its data put by its owner.
	private := testenv.StartMinIOTLS(t)
	private.MakeBucket(t, "dbs")
	dbStore, err := objstore.NewS3(objstore.S3Config{Endpoint: private.Host, Secure: true, PathStyle: true, Region: "us-east-1",
		AccessKey: private.AccessKey, SecretKey: private.SecretKey, CABundle: private.CA}, "dbs", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := dbStore.Put(ctx, "fasta/sep.fa", bytes.NewReader(db), int64(len(db))); err != nil {
		t.Fatal(err)
	}
	h.create(testkit.MinIOSecret(private, h.ns, "db-credentials"))

	// The queries' public bucket: anyone may read, nobody signs.
	public := testenv.StartMinIO(t)
	public.MakeBucket(t, "public")
	readOnly := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":["*"]},"Action":["s3:GetObject"],"Resource":["arn:aws:s3:::public/*"]}]}`
	if err := public.Client(t).SetBucketPolicy(ctx, "public", readOnly); err != nil {
		t.Fatal(err)
	}
	if _, err := public.Client(t).PutObject(ctx, "public", "sets/sep.fa", bytes.NewReader(queries), int64(len(queries)), minio.PutObjectOptions{}); err != nil {
		t.Fatal(err)
	}

	h.create(&v1alpha1.BlastDatabase{
		ObjectMeta: metav1.ObjectMeta{Name: "sep", Namespace: h.ns},
		Spec: v1alpha1.BlastDatabaseSpec{Source: v1alpha1.ObjectReference{Key: "fasta/sep.fa"}, Type: v1alpha1.DatabaseProtein,
			Shards: v1alpha1.Sharding{Count: ptr.To[int32](2)},
			Storage: v1alpha1.ObjectStorage{Endpoint: private.Endpoint, Bucket: "dbs", Prefix: "databases",
				CredentialsSecretRef: &v1alpha1.CredentialsSecretRef{Name: "db-credentials"},
				CABundle:             &v1alpha1.ConfigMapKeyRef{Name: "private-ca", Key: "ca.crt"}}},
	})
	var bdb v1alpha1.BlastDatabase
	getDB := func() string {
		if err := h.c.Get(ctx, client.ObjectKey{Namespace: h.ns, Name: "sep"}, &bdb); err != nil {
			return err.Error()
		}
		return string(bdb.Status.Phase) + " " + conditionsOf(bdb.Status.Conditions)
	}
	h.eventually("database waiting for its CA bundle", 30*time.Second, func() (bool, string) {
		s := getDB()
		return strings.Contains(s, "CABundleNotFound") && strings.Contains(s, "private-ca"), s
	})
	ca, err := os.ReadFile(private.CA)
	if err != nil {
		t.Fatal(err)
	}
	// Without the opt-in label the ConfigMap is refused: it would be
	// mounted into pods of an image the author chooses.
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "private-ca", Namespace: h.ns}, Data: map[string]string{"ca.crt": string(ca)}}
	h.create(cm)
	h.eventually("database refusing the unlabelled CA bundle", 30*time.Second, func() (bool, string) {
		s := getDB()
		return strings.Contains(s, "CABundleNotAllowed") && strings.Contains(s, v1alpha1.CABundleLabel+"=true"), s
	})
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := h.c.Get(ctx, client.ObjectKeyFromObject(cm), cm); err != nil {
			return err
		}
		cm.Labels = map[string]string{v1alpha1.CABundleLabel: "true"}
		return h.c.Update(ctx, cm)
	}); err != nil {
		t.Fatal(err)
	}
	h.eventually("database Ready", 2*time.Minute, func() (bool, string) {
		s := getDB()
		return bdb.Status.Phase == v1alpha1.DatabaseReady, s
	})

	c := h.campaign("sep", "sep", 2)
	c.Spec.Queries = v1alpha1.Queries{Format: "fasta", ObjectReference: v1alpha1.ObjectReference{Key: "sep.fa"},
		Storage: &v1alpha1.ObjectStorage{Endpoint: public.Endpoint, Bucket: "public", Prefix: "sets", Anonymous: true}}
	h.create(c)
	done := h.waitPhase("sep", v1alpha1.CampaignComplete, 4*time.Minute)
	if done.Status.Queries.Done != 7 {
		t.Errorf("status %+v", done.Status)
	}
	// Nothing of the campaign was written beside the queries or the
	// database: the ledger is on the output's server.
	for obj := range public.Client(t).ListObjects(ctx, "public", minio.ListObjectsOptions{Recursive: true}) {
		if obj.Key != "sets/sep.fa" {
			t.Errorf("the public bucket got %s", obj.Key)
		}
	}

	h.checkAgainstBlastp("sep", dir, db, queries)
}

// The policy applies to every store: a campaign whose output names no
// Secret waits (the operator would read its ledger with its own
// identity, which the default policy refuses); one whose queries' store
// names a Secret without the opt-in label waits, naming the field, and
// goes on once it is labelled; a service account outside the list is
// refused before the planning Job exists.
func TestStorePolicies(t *testing.T) {
	t.Parallel() // its own API server, MinIO and operator
	h := newHarnessWith(t, policy.Policy{RequireCredentialsLabel: true, ServiceAccounts: []string{"blast-irsa"}})
	ctx := context.Background()
	h.readyDatabase("db", v1alpha1.DatabaseProtein)

	c := h.campaign("ident", "db", 1)
	c.Spec.Output.CredentialsSecretRef = nil
	h.create(c)
	h.waitRefused("ident", policy.ReasonViolation, "credentialsSecretRef", "--allow-operator-identity")

	sec := testkit.MinIOSecret(h.minio, h.ns, "unlabelled")
	sec.Labels = nil
	h.create(sec)
	if err := h.store("").Put(ctx, "q/labels.fa", strings.NewReader(">q\nMKV\n"), 7); err != nil {
		t.Fatal(err)
	}
	c = h.campaign("labels", "db", 1)
	c.Spec.Queries = v1alpha1.Queries{Format: "fasta", ObjectReference: v1alpha1.ObjectReference{Key: "labels.fa"},
		Storage: &v1alpha1.ObjectStorage{Endpoint: h.minio.Endpoint, Bucket: bucket, Prefix: "q",
			CredentialsSecretRef: &v1alpha1.CredentialsSecretRef{Name: "unlabelled"}}}
	h.create(c)
	h.waitRefused("labels", policy.ReasonSecretNotAllowed, "spec.queries.storage.credentialsSecretRef", "unlabelled")
	var job batchv1.Job
	if err := h.c.Get(ctx, client.ObjectKey{Namespace: h.ns, Name: controllers.PlanJobName("labels")}, &job); !apierrors.IsNotFound(err) {
		t.Fatalf("a planning Job exists for a refused store: %v", err)
	}
	sec.Labels = map[string]string{v1alpha1.CredentialsLabel: "true"}
	if err := h.c.Update(ctx, sec); err != nil {
		t.Fatal(err)
	}
	h.eventually("planning Job once the Secret is labelled", 20*time.Second, func() (bool, string) {
		err := h.c.Get(ctx, client.ObjectKey{Namespace: h.ns, Name: controllers.PlanJobName("labels")}, &job)
		return err == nil, fmt.Sprint(err)
	})
	if args := strings.Join(job.Spec.Template.Spec.Containers[0].Args, " "); !strings.Contains(args, "--queries s3://"+bucket+"/q/labels.fa") {
		t.Errorf("planning Job args %s", args)
	}

	if err := h.store("").Put(ctx, "queries/sa.fa", strings.NewReader(">q\nMKV\n"), 7); err != nil {
		t.Fatal(err)
	}
	c = h.campaign("sa", "db", 1)
	c.Spec.Partitions.ServiceAccountName = "cluster-admin"
	h.create(c)
	h.waitRefused("sa", policy.ReasonViolation, "spec.partitions.serviceAccountName", "cluster-admin")

	// A database's sharding pods likewise.
	h.create(&v1alpha1.BlastDatabase{
		ObjectMeta: metav1.ObjectMeta{Name: "sa-db", Namespace: h.ns},
		Spec: v1alpha1.BlastDatabaseSpec{Source: v1alpha1.ObjectReference{Key: "fasta/x.fa"}, Type: v1alpha1.DatabaseProtein,
			Shards: v1alpha1.Sharding{Count: ptr.To[int32](1)}, Storage: h.output("databases"), ServiceAccountName: "cluster-admin"},
	})
	h.eventually("database refused its service account", 20*time.Second, func() (bool, string) {
		var db v1alpha1.BlastDatabase
		if err := h.c.Get(ctx, client.ObjectKey{Namespace: h.ns, Name: "sa-db"}, &db); err != nil {
			return false, err.Error()
		}
		s := string(db.Status.Phase) + " " + conditionsOf(db.Status.Conditions)
		return db.Status.Phase == v1alpha1.DatabasePending && strings.Contains(s, policy.ReasonViolation) &&
			strings.Contains(s, "spec.serviceAccountName") && strings.Contains(s, "cluster-admin"), s
	})
}

// TestPodIdentity runs a whole campaign with no credentials Secret
// anywhere, as on EKS with IRSA: every pod (sharding, planning, ranks)
// and the operator hold only a web identity token (projected by the
// cluster into AWS_WEB_IDENTITY_TOKEN_FILE), which MinIO exchanges at its
// STS (AssumeRoleWithWebIdentity) after checking it against a real
// OpenID issuer. The operator may use its own identity only because the
// policy allows it here, and MinIO's endpoint gets an identity's
// credentials only because the policy lists it; the token goes to MinIO's
// STS only because the operator's --sts-endpoint names it (never because
// it is the store's endpoint). The result equals blastp of the unsharded
// database.
func TestPodIdentity(t *testing.T) {
	idp := testenv.StartOIDC(t)
	m := idp.StartMinIO(t)
	m.WaitSTS(t)
	// The process environment is every local pod's host environment and
	// the operator's: a token, and no keys.
	token := filepath.Join(t.TempDir(), "token")
	writeToken := func(from *testenv.OIDC) {
		if err := os.WriteFile(token, []byte(from.Token(t, testenv.OIDCClientID, time.Hour, map[string]any{"policy": "readwrite"})), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// First a token MinIO must refuse: another issuer's.
	writeToken(testenv.StartOIDC(t))
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_ENDPOINT_URL"} {
		t.Setenv(k, "")
	}
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_WEB_IDENTITY_TOKEN_FILE", token)

	h := newHarnessSTS(t, kubetest.Start(t), policy.Policy{RequireCredentialsLabel: true, AllowOperatorIdentity: true, Endpoints: []string{"127.0.0.1"}}, m, m.Endpoint)
	dir := h.runLocally()
	ctx := context.Background()
	db, queries := synthProteins(t, synth.Options{Seed: 13, Families: 6, Members: 5, MinLen: 80, MaxLen: 160, Queries: 5, Unrelated: 8})
	st := h.store("")
	for key, data := range map[string][]byte{"fasta/irsa.fa": db, "queries/irsa.fa": queries} {
		if err := st.Put(ctx, key, bytes.NewReader(data), int64(len(data))); err != nil {
			t.Fatal(err)
		}
	}
	noSecret := func(prefix string) v1alpha1.ObjectStorage {
		s := h.output(prefix)
		s.CredentialsSecretRef = nil
		return s
	}
	h.create(&v1alpha1.BlastDatabase{
		ObjectMeta: metav1.ObjectMeta{Name: "irsa", Namespace: h.ns},
		Spec: v1alpha1.BlastDatabaseSpec{Source: v1alpha1.ObjectReference{Key: "fasta/irsa.fa"}, Type: v1alpha1.DatabaseProtein,
			Shards: v1alpha1.Sharding{Count: ptr.To[int32](2)}, Storage: noSecret("databases")},
	})
	var bdb v1alpha1.BlastDatabase
	h.eventually("database refused with another issuer's token", 30*time.Second, func() (bool, string) {
		if err := h.c.Get(ctx, client.ObjectKey{Namespace: h.ns, Name: "irsa"}, &bdb); err != nil {
			return false, err.Error()
		}
		s := string(bdb.Status.Phase) + " " + conditionsOf(bdb.Status.Conditions)
		return bdb.Status.Phase == v1alpha1.DatabasePending && strings.Contains(s, "StorageAccessDenied") &&
			strings.Contains(s, "no credentials from this pod's or host's identity"), s
	})
	t.Logf("with another issuer's token: %s", conditionsOf(bdb.Status.Conditions))
	writeToken(idp)

	c := h.campaign("irsa", "irsa", 2)
	c.Spec.Output = noSecret("campaigns")
	c.Spec.Partitions.ServiceAccountName = "blast-irsa"
	h.create(c)
	done := h.waitPhase("irsa", v1alpha1.CampaignComplete, 4*time.Minute)
	if done.Status.Queries.Done != 5 {
		t.Errorf("status %+v", done.Status)
	}
	h.checkAgainstBlastp("irsa", dir, db, queries)
}
