package controllers

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	config "github.com/blastfleet/blastfleet/api/config/v1alpha1"
	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers/executor"
	"github.com/blastfleet/blastfleet/internal/operator/burst"
	"github.com/blastfleet/blastfleet/internal/operator/policy"
	"github.com/blastfleet/blastfleet/internal/shared/jitter"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
)

// +kubebuilder:rbac:groups=blastfleet.io,resources=searchcampaigns,verbs=get;list;watch
// +kubebuilder:rbac:groups=blastfleet.io,resources=searchcampaigns/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=blastfleet.io,resources=blastdatabases,verbs=get;list;watch
// +kubebuilder:rbac:groups=kubeflow.org,resources=mpijobs,verbs=get;list;watch;create;delete
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create;delete
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// CampaignReconciler runs SearchCampaigns.
type CampaignReconciler struct {
	client.Client
	// Pods reads pods past the cache (the manager's API reader): a failed
	// Job's pods are read seldom, and a cached read would start an
	// informer holding every pod of the cluster for the operator's life.
	Pods     client.Reader
	Scheme   *runtime.Scheme
	Recorder events.EventRecorder
	Stores   StoreOpener
	// Executors run the partitions, by spec.executor (newExecutors).
	Executors executor.Registry
	// WorkerImage is the image partitions and planning run when the
	// campaign does not name one.
	WorkerImage string
	// PollInterval is how often a running campaign's ledger is read.
	PollInterval time.Duration
	// Site names this cluster's partitions in the ledger (DefaultSite if
	// empty), so a campaign's status tells them from HPC sites'.
	Site string
	// WindDown is how long a finished campaign's running partitions get
	// to end on their own before they are deleted: with no chunk left
	// they exit within seconds, their run records saying how they ended.
	WindDown time.Duration
	// Burst is the hysteresis of campaigns with a deadline (zero: the
	// burst package's DefaultPolicy).
	Burst burst.Policy
	// Policy restricts the partitions' image and placement; the
	// endpoint and credentials rules are the Stores'.
	Policy policy.Policy
	// Now is the clock (tests move it).
	Now func() time.Time
	// Bounds limit the reconciler's store work.
	Bounds StoreBounds
	// Namespaces: which namespaces' objects it reconciles (the zero
	// value: all).
	Namespaces namespaces
	// PartitionNetworkPolicy: each campaign gets a NetworkPolicy letting
	// into its pods only its own pods' traffic and metrics scrapes.
	PartitionNetworkPolicy bool
	// SummaryMaxAge is how old the summary.json partitions write may be
	// for a status poll to read it instead of listing the chunks (zero:
	// DefaultSummaryMaxAge).
	SummaryMaxAge time.Duration

	ledgers sync.Map // campaign UID -> *cachedLedger, whose Ledger caches records by ETag
	// poller reads running campaigns' stores outside Reconcile
	// (SetupWithManager starts it); nil: each reconcile reads them.
	poller  *ledgerPoller
	backoff storeBackoff

	secretsOnce sync.Once
	secrets     *cachedReader // Stores.Secrets, cached for secretTTL
}

// forgetSecrets drops the cached Secrets of namespace.
func (r *CampaignReconciler) forgetSecrets(namespace string) {
	if r.secrets != nil {
		r.secrets.forget(namespace)
	}
}

// secretReader is Stores.Secrets behind the reconciler's cache.
func (r *CampaignReconciler) secretReader() *cachedReader {
	r.secretsOnce.Do(func() { r.secrets = newCachedReader(r.Stores.Secrets, secretTTL, r.Now) })
	return r.secrets
}

// Reconcile moves a campaign one step: database, plan, ledger,
// partitions, completion; then writes its status once.
func (r *CampaignReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var c v1alpha1.SearchCampaign
	if err := r.Get(ctx, req.NamespacedName, &c); err != nil {
		if apierrors.IsNotFound(err) {
			r.forget(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	r.Stores.defaultCampaign(&c)
	if ours, err := r.Namespaces.owns(ctx, c.Namespace); err != nil || !ours {
		// Another release's namespace: its operator reconciles it.
		r.forget(req.NamespacedName)
		return ctrl.Result{}, err
	}
	if !c.DeletionTimestamp.IsZero() {
		// Owner references remove the partitions; the ledger and result
		// stay in object storage on purpose.
		r.evict(c.UID)
		return ctrl.Result{}, nil
	}
	run := newCampaignRun(r, &c)
	// One tenant's store that trickles or swallows packets costs its own
	// campaign this long at most, never a worker for ever.
	rctx, cancel := r.Bounds.reconcileContext(ctx)
	err := run.reconcile(rctx)
	start := time.Now()
	run.recordCost(rctx)
	observeStep("cost", start)
	cancel()
	start = time.Now()
	werr := run.writeStatus(ctx)
	observeStep("status", start)
	if werr == nil && run.terminal() {
		// A finished campaign reads its ledger no more: its cached
		// records would stay in memory for as long as the operator runs.
		// Only once its status says so: a lost write is reconciled again.
		r.evict(c.UID)
	}
	if werr != nil {
		if apierrors.IsConflict(werr) {
			return ctrl.Result{Requeue: true}, nil
		}
		return ctrl.Result{}, errors.Join(err, werr)
	}
	if err != nil {
		log.FromContext(ctx).Error(err, "reconciling campaign")
		return ctrl.Result{}, err
	}
	requeue := run.requeue
	if run.storeFailed {
		r.forgetSecrets(c.Namespace) // the keys may be what failed
		requeue = max(requeue, r.backoff.next(c.UID, r.PollInterval))
	} else {
		r.backoff.reset(c.UID)
	}
	return ctrl.Result{RequeueAfter: requeue}, nil
}

// evict drops what the reconciler holds of a campaign: its ledger handle
// (whose cached records would stay in memory for as long as the
// operator runs) and its backoff.
func (r *CampaignReconciler) evict(uid types.UID) {
	r.ledgers.Delete(uid)
	r.backoff.reset(uid)
	if r.poller != nil {
		r.poller.forget(uid)
	}
}

// poll is the poll interval, spread by jitter: campaigns (and the
// reconciles after an operator restart) that started together would
// otherwise read their ledgers in lockstep for ever.
func (r *CampaignReconciler) poll() time.Duration { return jitter.Spread(r.PollInterval) }

// DefaultSummaryMaxAge: see the configuration package's.
const DefaultSummaryMaxAge = config.DefaultSummaryMaxAge

func (r *CampaignReconciler) summaryMaxAge() time.Duration {
	if r.SummaryMaxAge > 0 {
		return r.SummaryMaxAge
	}
	return DefaultSummaryMaxAge
}

func (r *CampaignReconciler) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func (r *CampaignReconciler) forget(key types.NamespacedName) {
	r.ledgers.Range(func(k, v any) bool {
		if e := v.(*cachedLedger); e.key == key {
			r.evict(k.(types.UID))
		}
		return true
	})
}

type cachedLedger struct {
	key types.NamespacedName
	l   *ledger.Ledger
	// access is the output store's credentials and endpoint as the ledger
	// was opened with them (storeAccess): when they change, a rotated
	// key say, the ledger is opened again with the new ones.
	access string
	// reported is the version of the last read whose problems were
	// reported (ledgerRead.version).
	reported atomic.Value
}

// SetupWithManager watches campaigns, their partitions and planning Jobs,
// and the databases they reference.
func (r *CampaignReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.WindDown == 0 {
		r.WindDown = time.Minute
	}
	if r.PollInterval == 0 {
		r.PollInterval = 15 * time.Second
	}
	if r.Burst == (burst.Policy{}) {
		r.Burst = burst.DefaultPolicy
	}
	ctx := context.Background()
	if err := mgr.GetFieldIndexer().IndexField(ctx, &v1alpha1.SearchCampaign{}, fieldDatabaseRef, func(o client.Object) []string {
		return []string{o.(*v1alpha1.SearchCampaign).Spec.DatabaseRef.Name}
	}); err != nil {
		return err
	}
	b := ctrl.NewControllerManagedBy(mgr).
		// Campaigns are many tenants': one whose store is slow must not
		// hold up the others.
		WithOptions(controller.Options{MaxConcurrentReconciles: r.Bounds.withDefaults().MaxConcurrentReconciles}).
		For(&v1alpha1.SearchCampaign{}, builder.WithPredicates(predicate.Or(predicate.GenerationChangedPredicate{}, predicate.AnnotationChangedPredicate{})))
	for _, e := range r.Executors.All() {
		if _, ok := e.NewObject().(*unstructured.Unstructured); !ok {
			if err := mgr.GetFieldIndexer().IndexField(ctx, e.NewObject(), indexCampaign, campaignOf); err != nil {
				return err
			}
		}
		b = b.Owns(e.NewObject())
	}
	if err := r.startPoller(mgr); err != nil {
		return err
	}
	b = b.WatchesRawSource(source.Channel(r.poller.events, &handler.EnqueueRequestForObject{}))
	b = b.
		Owns(&batchv1.Job{}).
		Watches(&v1alpha1.BlastDatabase{}, handler.EnqueueRequestsFromMapFunc(r.campaignsOfDatabase))
	if r.Namespaces.watched() {
		b = b.Watches(&corev1.Namespace{}, enqueueAll(mgr.GetClient(), func() client.ObjectList { return &v1alpha1.SearchCampaignList{} }),
			builder.WithPredicates(predicate.LabelChangedPredicate{}))
	}
	return b.Named("searchcampaign").
		Complete(r)
}

func (r *CampaignReconciler) campaignsOfDatabase(ctx context.Context, o client.Object) []reconcile.Request {
	var list v1alpha1.SearchCampaignList
	if err := r.List(ctx, &list, client.InNamespace(o.GetNamespace()), client.MatchingFields{fieldDatabaseRef: o.GetName()}); err != nil {
		log.FromContext(ctx).Error(err, "listing campaigns of a database", "database", o.GetName())
		return nil
	}
	reqs := make([]reconcile.Request, len(list.Items))
	for i, c := range list.Items {
		reqs[i] = reconcile.Request{NamespacedName: types.NamespacedName{Namespace: c.Namespace, Name: c.Name}}
	}
	return reqs
}
