package controllers

import (
	"context"
	"errors"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers/executor/argo"
	"github.com/blastfleet/blastfleet/internal/operator/policy"
	"github.com/blastfleet/blastfleet/internal/plan/search/fromapi"
	"github.com/blastfleet/blastfleet/internal/shared/jitter"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// +kubebuilder:rbac:groups=blastfleet.io,resources=blastdatabases,verbs=get;list;watch
// +kubebuilder:rbac:groups=blastfleet.io,resources=blastdatabases/status,verbs=get;update;patch

// DatabaseReconciler shards BlastDatabases: an Indexed Job builds one shard
// per completion index (a failed index is retried by the Job), then a
// second Job writes the manifest, from which the status is filled.
type DatabaseReconciler struct {
	client.Client
	// Pods: as CampaignReconciler.Pods.
	Pods         client.Reader
	Scheme       *runtime.Scheme
	Recorder     events.EventRecorder
	Stores       StoreOpener
	WorkerImage  string
	PollInterval time.Duration
	// Policy restricts the sharding pods' image; the endpoint and
	// credentials rules are the Stores'.
	Policy policy.Policy
	// Argo: Argo Workflows was installed at the operator's start, so
	// databases build as Workflows unless spec.builder says job.
	Argo bool
	// TTLSecondsAfterFinished keeps finished build Workflows this long.
	TTLSecondsAfterFinished int32
	// Bounds limit the reconciler's store work.
	Bounds StoreBounds
	// Namespaces: which namespaces' objects it reconciles (the zero
	// value: all).
	Namespaces namespaces
}

type databaseRun struct {
	r      *DatabaseReconciler
	db     *v1alpha1.BlastDatabase
	before *v1alpha1.BlastDatabaseStatus
	store  objstore.Store
	events []event
}

// Reconcile moves a database one step towards Ready.
func (r *DatabaseReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var db v1alpha1.BlastDatabase
	if err := r.Get(ctx, req.NamespacedName, &db); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	r.Stores.defaultDatabase(&db)
	if ours, err := r.Namespaces.owns(ctx, db.Namespace); err != nil || !ours {
		return ctrl.Result{}, err // another release's namespace
	}
	if !db.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil // the shards stay in object storage on purpose
	}
	ctx, cancel := r.Bounds.reconcileContext(ctx)
	defer cancel()
	st := db.Status
	sized := st.Phase != v1alpha1.DatabaseReady || st.Bytes > 0
	if (st.Phase == v1alpha1.DatabaseReady || st.Phase == v1alpha1.DatabaseFailed) && st.ObservedGeneration == db.Generation && sized && replicasSettled(&db) {
		return ctrl.Result{}, nil
	}
	run := &databaseRun{r: r, db: &db, before: db.Status.DeepCopy()}
	var requeue time.Duration
	var err error
	switch {
	case st.Phase == v1alpha1.DatabaseReady:
		// A Ready database is never built again: its spec is fixed but
		// for its replicas, which are all a new generation can change.
		if !sized {
			requeue, err = run.size(ctx)
		}
	default:
		requeue, err = run.reconcile(ctx)
	}
	if err == nil {
		var again time.Duration
		again, err = run.replicate(ctx)
		requeue = soonest(requeue, again)
	}
	if werr := run.writeStatus(ctx); werr != nil {
		if apierrors.IsConflict(werr) {
			return ctrl.Result{Requeue: true}, nil
		}
		return ctrl.Result{}, errors.Join(err, werr)
	}
	// Every requeue here is the poll interval (or none): spread, so
	// databases built together do not poll in lockstep.
	return ctrl.Result{RequeueAfter: jitter.Spread(requeue)}, err
}

// soonest is the sooner of two requeue delays, 0 meaning none.
func soonest(a, b time.Duration) time.Duration {
	if a == 0 || (b != 0 && b < a) {
		return b
	}
	return a
}

func (run *databaseRun) reconcile(ctx context.Context) (time.Duration, error) {
	db := run.db
	// Checked before anything is reached or created; the spec may be
	// fixed while the database is not Ready.
	if err := errors.Join(run.r.Policy.Image("spec.image", db.Spec.Image, run.r.WorkerImage),
		run.r.Policy.ServiceAccount("spec.serviceAccountName", db.Spec.ServiceAccountName)); err != nil {
		run.set(v1alpha1.DatabasePending, policy.ReasonViolation, err.Error())
		return run.r.PollInterval, nil
	}
	loc := location(db.Spec.Storage, db.Namespace, db.Name)
	db.Status.Location = loc
	bucket, prefix := splitLocation(loc)
	st, err := run.r.Stores.Open(ctx, db.Namespace, db.Spec.Storage, bucket, prefix)
	if err != nil {
		run.set(v1alpha1.DatabasePending, storageReason(err), "spec.storage: "+err.Error())
		return run.r.PollInterval, nil
	}
	st = run.r.Bounds.bound(st)
	run.store = st

	src := fromapi.ObjectURL(db.Spec.Storage, db.Spec.Source)
	return run.r.builderFor(db).build(ctx, run, src, loc)
}

// blastDBExists reports whether the source's location holds files of the
// database it names.
func (run *databaseRun) blastDBExists(ctx context.Context, src string) (bool, error) {
	bucket, key := splitLocation(src)
	st, err := run.r.Stores.Open(ctx, run.db.Namespace, run.db.Spec.Storage, bucket, "")
	if err != nil {
		return false, err
	}
	st = run.r.Bounds.bound(st)
	infos, err := st.List(ctx, key+".")
	if err != nil {
		return false, err
	}
	return len(infos) > 0, nil
}

// ready fills the status from the manifest Ready databases have.
func (run *databaseRun) ready(ctx context.Context, st objstore.Store, loc string) (time.Duration, error) {
	db := run.db
	m, sum, err := manifest.LoadCurrent(ctx, st)
	if err != nil {
		run.set(v1alpha1.DatabaseSharding, "WritingManifest", fmt.Sprintf("reading the manifest at %s: %v", loc, err))
		return run.r.PollInterval, nil
	}
	db.Status.Sequences, db.Status.Letters, db.Status.Shards = m.Sequences, m.Letters, int32(len(m.Shards))
	setSizes(&db.Status, m)
	db.Status.BlastVersion = m.BlastVersion
	db.Status.ManifestSHA256, db.Status.Build = sum, m.Build
	run.set(v1alpha1.DatabaseReady, "Ready", fmt.Sprintf("%d sequences, %d letters in %d shards at %s", m.Sequences, m.Letters, len(m.Shards), loc))
	return 0, nil
}

// size fills in the sizes of a database made Ready before its status
// had them (status.bytes), from its manifest, touching nothing else: its
// Jobs may be gone, and it must not be sharded again.
func (run *databaseRun) size(ctx context.Context) (time.Duration, error) {
	db := run.db
	bucket, prefix := splitLocation(db.Status.Location)
	st, err := run.r.Stores.Open(ctx, db.Namespace, db.Spec.Storage, bucket, prefix)
	if err != nil {
		return run.r.PollInterval, nil // campaigns size their pods without it meanwhile
	}
	st = run.r.Bounds.bound(st)
	m, _, err := manifest.LoadCurrent(ctx, st)
	if err != nil {
		return run.r.PollInterval, nil
	}
	setSizes(&db.Status, m)
	return 0, nil
}

// setSizes fills in the database's sizes from its manifest, which size
// campaigns' worker pods (sizeWorkers).
func setSizes(st *v1alpha1.BlastDatabaseStatus, m *manifest.Manifest) {
	st.Bytes, st.LargestShardBytes, st.CommonBytes = 0, 0, 0
	for _, s := range m.Shards {
		b := s.Bytes()
		st.Bytes += b
		st.LargestShardBytes = max(st.LargestShardBytes, b)
	}
	for _, f := range m.Common {
		st.CommonBytes += f.Size
	}
	st.Bytes += st.CommonBytes
}

// shardCount is spec.shards.count, or the source's size in bytes divided
// by spec.shards.targetSize, rounded up.
func (run *databaseRun) shardCount(ctx context.Context, src string) (int32, error) {
	bucket, key := splitLocation(src)
	st, err := run.r.Stores.Open(ctx, run.db.Namespace, run.db.Spec.Storage, bucket, "")
	if err != nil {
		return 0, err
	}
	st = run.r.Bounds.bound(st)
	info, err := st.Stat(ctx, key)
	if err != nil {
		return 0, err
	}
	sh := run.db.Spec.Shards
	if sh.Count != nil {
		return *sh.Count, nil
	}
	per := sh.TargetSize.Value()
	if per < 1 {
		per = 1
	}
	n := (info.Size + per - 1) / per
	return int32(min(max(n, 1), 4096)), nil
}

func (run *databaseRun) ensureJob(ctx context.Context, job *batchv1.Job) (*batchv1.Job, error) {
	var got batchv1.Job
	err := run.r.Get(ctx, client.ObjectKeyFromObject(job), &got)
	if err == nil {
		return &got, nil
	}
	if !apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("reading Job %s: %w", job.Name, err)
	}
	if err := controllerutil.SetControllerReference(run.db, job, run.r.Scheme); err != nil {
		return nil, err
	}
	podWithSTS(&job.Spec.Template.Spec, run.r.Stores.STSEndpoint)
	if err := run.r.Create(ctx, job); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("creating Job %s: %w", job.Name, err)
	}
	run.events = append(run.events, event{reason: "JobCreated", action: "Create", note: "Job " + job.Name + " created"})
	return job, nil
}

func (run *databaseRun) podFailure(ctx context.Context, job *batchv1.Job) string {
	return podFailure(ctx, podReader(run.r.Pods, run.r.Client), job.Namespace, job.Name, jobMessage(job))
}

func (run *databaseRun) set(phase v1alpha1.DatabasePhase, reason, msg string) {
	db := run.db
	db.Status.Phase = phase
	cond := func(t string, on bool) {
		s := metav1.ConditionFalse
		if on {
			s = metav1.ConditionTrue
		}
		meta.SetStatusCondition(&db.Status.Conditions, metav1.Condition{Type: t, Status: s, Reason: reason, Message: truncate(msg, 32*1024), ObservedGeneration: db.Generation})
	}
	cond(v1alpha1.ConditionReady, phase == v1alpha1.DatabaseReady)
	cond(v1alpha1.ConditionProgressing, phase == v1alpha1.DatabaseSharding)
	cond(v1alpha1.ConditionFailed, phase == v1alpha1.DatabaseFailed)
	if phase != run.before.Phase {
		run.events = append(run.events, event{warning: phase == v1alpha1.DatabaseFailed || policy.IsRefusal(reason), reason: reason, action: string(phase), note: msg})
	}
}

func (run *databaseRun) writeStatus(ctx context.Context) error {
	db := run.db
	if db.Status.Phase == v1alpha1.DatabaseReady || db.Status.Phase == v1alpha1.DatabaseFailed {
		db.Status.ObservedGeneration = db.Generation
	}
	if !equality.Semantic.DeepEqual(run.before, &db.Status) {
		if err := run.r.Status().Update(ctx, db); err != nil {
			return fmt.Errorf("writing status: %w", err)
		}
	}
	emit(run.r.Recorder, db, run.events)
	return nil
}

func (r *DatabaseReconciler) image(db *v1alpha1.BlastDatabase) string {
	if db.Spec.Image != "" {
		return db.Spec.Image
	}
	return r.WorkerImage
}

// SetupWithManager watches databases and their Jobs.
func (r *DatabaseReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.PollInterval == 0 {
		r.PollInterval = 15 * time.Second
	}
	b := ctrl.NewControllerManagedBy(mgr).
		WithOptions(controller.Options{MaxConcurrentReconciles: r.Bounds.withDefaults().MaxConcurrentReconciles}).
		For(&v1alpha1.BlastDatabase{}).
		Owns(&batchv1.Job{})
	if r.Argo {
		b = b.Owns(argo.Executor{}.NewObject())
	}
	if r.Namespaces.watched() {
		b = b.Watches(&corev1.Namespace{}, enqueueAll(mgr.GetClient(), func() client.ObjectList { return &v1alpha1.BlastDatabaseList{} }),
			builder.WithPredicates(predicate.LabelChangedPredicate{}))
	}
	return b.Named("blastdatabase").Complete(r)
}
