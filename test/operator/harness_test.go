package operator

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers"
	"github.com/blastfleet/blastfleet/internal/operator/policy"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/kubetest"
	"github.com/blastfleet/blastfleet/test/support/testenv"
	"github.com/blastfleet/blastfleet/test/support/testenv/testkit"
)

const (
	bucket      = "blastfleet"
	secretName  = "minio-credentials"
	workerImage = "registry.example/blastfleet/worker:test"
	poll        = 300 * time.Millisecond
)

// harness is a real API server, a real MinIO and the operator running
// in-process against them; the test plays the MPI operator and the Job
// controller by writing their objects' status.
type harness struct {
	t      testing.TB
	env    *kubetest.Env
	c      client.Client
	minio  *testenv.MinIO
	ns     string
	policy policy.Policy
	// sts is the operator's --sts-endpoint.
	sts string
	// bounds are the operator's store bounds (zero: its defaults); set
	// them, then restart the operator.
	bounds controllers.StoreBounds
	// nsSelector is the operator's --namespace-selector ("": all); set
	// it, then restart the operator.
	nsSelector string
	stopOp     context.CancelFunc
	opDone     chan struct{}
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	return newHarnessWith(t, policy.Policy{RequireCredentialsLabel: true, RequireCABundleLabel: true}) // the manager's defaults
}

// newHarnessWith runs the operator with policy p.
func newHarnessWith(t testing.TB, p policy.Policy) *harness {
	t.Helper()
	return newHarnessOn(t, p, testenv.StartMinIO(t))
}

// newArgoHarness runs the operator on an API server with Argo's CRDs.
func newArgoHarness(t testing.TB) *harness {
	t.Helper()
	return newHarnessEnv(t, kubetest.StartArgo(t), policy.Policy{RequireCredentialsLabel: true, RequireCABundleLabel: true}, testenv.StartMinIO(t))
}

// newHarnessOn runs the operator with policy p against MinIO m.
func newHarnessOn(t testing.TB, p policy.Policy, m *testenv.MinIO) *harness {
	t.Helper()
	return newHarnessEnv(t, kubetest.Start(t), p, m)
}

func newHarnessEnv(t testing.TB, env *kubetest.Env, p policy.Policy, m *testenv.MinIO) *harness {
	t.Helper()
	return newHarnessSTS(t, env, p, m, "")
}

// newHarnessSTS runs the operator with --sts-endpoint sts.
func newHarnessSTS(t testing.TB, env *kubetest.Env, p policy.Policy, m *testenv.MinIO, sts string) *harness {
	t.Helper()
	// MinIO listens on loopback, an internal endpoint; with no list the
	// policy would refuse it (internal/operator/policy has the refusals' tests).
	p.AllowInternalEndpoints = true
	h := &harness{t: t, env: env, minio: m, ns: "default", policy: p, sts: sts}
	h.c = h.env.Client
	h.minio.MakeBucket(t, bucket)
	h.create(testkit.MinIOSecret(h.minio, h.ns, secretName))
	quietGlobalLog.Do(func() { ctrl.SetLogger(zap.New(zap.WriteTo(io.Discard))) })
	h.startOperator()
	t.Cleanup(h.stopOperator)
	return h
}

// quietGlobalLog: controller-runtime wants a global logger set once; the
// operators of parallel tests log to their own tests (Options.Logger).
var quietGlobalLog sync.Once

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	if testing.Verbose() {
		w.t.Log(strings.TrimRight(string(p), "\n"))
	}
	return len(p), nil
}

func (h *harness) startOperator() {
	h.t.Helper()
	mgr, err := ctrl.NewManager(h.env.Config, ctrl.Options{
		// Its own log: tests run in parallel, each with its operator.
		Logger: zap.New(zap.UseDevMode(true), zap.WriteTo(testWriter{h.t})),
		Scheme: h.env.Scheme,
		// The operator's own cache, trimmed: every test then checks that
		// no reconcile reads what the trim drops.
		Cache:                  controllers.CacheOptions(),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		// The same controllers are registered again after a restart.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		h.t.Fatal(err)
	}
	if err := controllers.Setup(mgr, controllers.Config{WorkerImage: workerImage, PollInterval: poll, PartitionTTL: time.Hour, WindDown: windDown, Policy: h.policy,
		Burst: burstPolicy, STSEndpoint: h.sts, Bounds: h.bounds, NamespaceSelector: h.nsSelector,
		PartitionNetworkPolicy: true}); err != nil { // the manager's default
		h.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(ctx); err != nil {
			h.t.Errorf("operator: %v", err)
		}
	}()
	h.stopOp, h.opDone = cancel, done
}

func (h *harness) stopOperator() {
	if h.stopOp != nil {
		h.stopOp()
		<-h.opDone
		h.stopOp = nil
	}
}

func (h *harness) create(obj client.Object) {
	h.t.Helper()
	if err := h.c.Create(context.Background(), obj); err != nil {
		h.t.Fatalf("creating %T %s: %v", obj, obj.GetName(), err)
	}
}

// store is the MinIO bucket, for writing objects the way users and
// partitions would.
func (h *harness) store(prefix string) objstore.Store {
	h.t.Helper()
	return testkit.MinIOStore(h.t, h.minio, bucket, prefix)
}

func (h *harness) output(prefix string) v1alpha1.ObjectStorage {
	return v1alpha1.ObjectStorage{Endpoint: h.minio.Endpoint, Region: "us-east-1", Bucket: bucket, Prefix: prefix,
		CredentialsSecretRef: &v1alpha1.CredentialsSecretRef{Name: secretName, AccessKeyIDKey: "AWS_ACCESS_KEY_ID", SecretAccessKeyKey: "AWS_SECRET_ACCESS_KEY"}}
}

// readyDatabase creates a BlastDatabase and marks it Ready, as the
// database reconciler would once its Jobs finished.
func (h *harness) readyDatabase(name string, typ v1alpha1.DatabaseType) *v1alpha1.BlastDatabase {
	h.t.Helper()
	db := &v1alpha1.BlastDatabase{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: h.ns},
		Spec: v1alpha1.BlastDatabaseSpec{
			Source: v1alpha1.ObjectReference{Key: "fasta/" + name + ".fa"}, Type: typ,
			Shards: v1alpha1.Sharding{Count: ptr.To[int32](2)}, Storage: h.output("databases"),
		},
	}
	h.create(db)
	// The database reconciler may write first (it finds no source);
	// Ready at the current generation makes it leave the database alone.
	h.eventually("database "+name+" Ready", 10*time.Second, func() (bool, string) {
		if err := h.c.Get(context.Background(), client.ObjectKeyFromObject(db), db); err != nil {
			return false, err.Error()
		}
		db.Status = v1alpha1.BlastDatabaseStatus{Phase: v1alpha1.DatabaseReady, Shards: 2, Sequences: 10, Letters: 1000,
			Bytes: dbBytes, LargestShardBytes: dbBytes / 2, ObservedGeneration: db.Generation, Location: fmt.Sprintf("s3://%s/databases/%s/%s", bucket, h.ns, name)}
		if err := h.c.Status().Update(context.Background(), db); err != nil {
			return false, err.Error()
		}
		return true, ""
	})
	return db
}

// dbBytes is the size of readyDatabase's shards, which sizes the
// campaigns' worker pods.
const dbBytes = 3000

// campaign is a valid campaign with every defaulted field spelled out.
func (h *harness) campaign(name, db string, partitions int32) *v1alpha1.SearchCampaign {
	return &v1alpha1.SearchCampaign{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: h.ns},
		Spec: v1alpha1.SearchCampaignSpec{
			DatabaseRef:    v1alpha1.DatabaseReference{Name: db},
			Queries:        v1alpha1.Queries{ObjectReference: v1alpha1.ObjectReference{Key: "queries/" + name + ".fa"}, Format: "fasta"},
			Program:        "blastp",
			Outfmt:         "6",
			MaxTargetSeqs:  500,
			TopHits:        "auto",
			Chunking:       v1alpha1.Chunking{Queries: ptr.To[int32](2)},
			Partitions:     v1alpha1.Partitions{Count: partitions, Workers: 2, SlotsPerWorker: 1},
			OutputStrategy: "worker-merge",
			Output:         h.output("campaigns"),
			RetryPolicy:    v1alpha1.RetryPolicy{MaxAttempts: 3, LeaseSeconds: 30, MaxPartitionRestarts: 3, BackoffSeconds: 0, MaxBackoffSeconds: 1},
		},
	}
}

// eventually polls cond until it holds or the timeout passes.
func (h *harness) eventually(what string, timeout time.Duration, cond func() (bool, string)) {
	h.t.Helper()
	testenv.Eventually(h.t, what, timeout, 100*time.Millisecond, cond)
}

func (h *harness) get(name string) *v1alpha1.SearchCampaign {
	h.t.Helper()
	var c v1alpha1.SearchCampaign
	if err := h.c.Get(context.Background(), client.ObjectKey{Namespace: h.ns, Name: name}, &c); err != nil {
		h.t.Fatal(err)
	}
	return &c
}

func (h *harness) waitPhase(name string, phase v1alpha1.CampaignPhase, timeout time.Duration) *v1alpha1.SearchCampaign {
	h.t.Helper()
	var c *v1alpha1.SearchCampaign
	h.eventually("campaign "+name+" phase "+string(phase), timeout, func() (bool, string) {
		c = h.get(name)
		return c.Status.Phase == phase, fmt.Sprintf("phase %s, conditions %+v", c.Status.Phase, c.Status.Conditions)
	})
	return c
}

// partitions are the campaign's MPIJobs by name.
func (h *harness) partitions(campaign string) map[string]*kubeflow.MPIJob {
	h.t.Helper()
	var list kubeflow.MPIJobList
	if err := h.c.List(context.Background(), &list, client.InNamespace(h.ns), client.MatchingLabels{controllers.LabelCampaign: campaign}); err != nil {
		h.t.Fatal(err)
	}
	m := map[string]*kubeflow.MPIJob{}
	for i := range list.Items {
		if list.Items[i].DeletionTimestamp.IsZero() {
			m[list.Items[i].Name] = &list.Items[i]
		}
	}
	return m
}

func names(m map[string]*kubeflow.MPIJob) string {
	var s []string
	for n := range m {
		s = append(s, n)
	}
	return strings.Join(sortStrings(s), ",")
}

// waitPartitions waits until the campaign's MPIJobs are exactly want.
func (h *harness) waitPartitions(campaign string, want ...string) map[string]*kubeflow.MPIJob {
	h.t.Helper()
	var got map[string]*kubeflow.MPIJob
	h.eventually("partitions "+strings.Join(want, ","), 20*time.Second, func() (bool, string) {
		got = h.partitions(campaign)
		return names(got) == strings.Join(sortStrings(want), ","), names(got)
	})
	return got
}

// setJobCondition writes an MPIJob condition as the MPI operator would.
// partitionExited marks a partition that assembled the result Succeeded,
// as its launcher's exit would. The operator may have seen the assembled
// result first and removed the partition (still Queued here, so without
// a wind-down): that is the campaign ending, not a failure.
func (h *harness) partitionExited(job *kubeflow.MPIJob) {
	h.t.Helper()
	now := metav1.Now()
	job.Status.Conditions = append(job.Status.Conditions, kubeflow.JobCondition{Type: kubeflow.JobSucceeded, Status: corev1.ConditionTrue, Reason: "Succeeded", LastUpdateTime: now, LastTransitionTime: now})
	if err := h.c.Status().Update(context.Background(), job); err != nil && !apierrors.IsNotFound(err) {
		h.t.Fatalf("setting Succeeded on %s: %v", job.Name, err)
	}
}

func (h *harness) setJobCondition(job *kubeflow.MPIJob, t kubeflow.JobConditionType, reason, msg string) {
	h.t.Helper()
	now := metav1.Now()
	job.Status.Conditions = append(job.Status.Conditions, kubeflow.JobCondition{Type: t, Status: corev1.ConditionTrue, Reason: reason, Message: msg, LastUpdateTime: now, LastTransitionTime: now})
	if err := h.c.Status().Update(context.Background(), job); err != nil {
		h.t.Fatalf("setting %s on %s: %v", t, job.Name, err)
	}
}
