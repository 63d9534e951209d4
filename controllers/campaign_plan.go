package controllers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// ensurePlan makes sure the campaign's plan is in the ledger: it is read
// if present, else a planning Job writes it.
func (run *campaignRun) ensurePlan(ctx context.Context) (bool, error) {
	c := run.c
	access := run.storeAccess(ctx)
	if v, ok := run.r.ledgers.Load(c.UID); ok {
		cached := v.(*cachedLedger)
		run.ledger = cached.l
		run.planRead(ctx, cached.l)
		if cached.access != access {
			// The Secret (or endpoint, or CA) changed: a handle on the
			// old keys would fail for ever after a rotation.
			countStoreRead(readCredentialsChanged)
			return run.reopenLedger(ctx, access)
		}
		return true, nil
	}
	countStoreRead(readLedgerOpen)
	l, err := ledger.Open(ctx, run.store, ledger.Options{})
	switch {
	case err == nil:
		if msg := planMismatch(l.Plan(), c, run.db); msg != "" {
			return run.fail("PlanMismatch", fmt.Sprintf("%s already holds the plan of another campaign: %s; delete it or name this campaign differently", run.loc, msg))
		}
		if first := c.Status.PlanETag; first != "" && first != l.PlanETag() {
			// Edited while no operator held it open (it was down).
			return run.planChanged(ctx, fmt.Errorf("%w: %s has ETag %s, first read with %s", ledger.ErrPlanChanged, run.store.URL(ledger.PlanKey), l.PlanETag(), first))
		}
		run.ledger = l
		run.r.ledgers.Store(c.UID, &cachedLedger{key: client.ObjectKeyFromObject(c), l: l, access: access})
		run.planRead(ctx, l)
		run.normalOnTransition("Planned", "Plan", fmt.Sprintf("plan ready: %d queries in %d chunks", l.Plan().Queries.Count, len(l.Plan().Chunks)))
		return true, nil
	case c.Status.PlanETag != "" && (errors.Is(err, ledger.ErrInvalidPlan) || errors.Is(err, objstore.ErrNotExist)):
		// The campaign was planned, and its plan is gone or no longer
		// valid: edited while no operator held it open (it was down).
		// Its partitions stop; a new plan would mix two plans' chunks.
		return run.planChanged(ctx, fmt.Errorf("%w: %s, first read with ETag %s: %v", ledger.ErrPlanChanged, run.store.URL(ledger.PlanKey), c.Status.PlanETag, err))
	case errors.Is(err, ledger.ErrInvalidPlan):
		// Not a plan any planner of this version writes: a store writer's
		// edit (issue 30). Nothing is created from it.
		return run.fail("InvalidPlan", truncate(fmt.Sprintf("%s holds a plan.json the operator refuses, so no partition is created: %v; delete it or name this campaign differently", run.loc, err), 1024))
	case errors.Is(err, objstore.ErrTooLarge):
		// Waits rather than fails: the administrator may raise the limit.
		return run.wait(v1alpha1.CampaignPending, "ObjectTooLarge", fmt.Sprintf("reading the plan at %s: %v (the operator's --max-object-bytes)", run.loc, err))
	case !errors.Is(err, objstore.ErrNotExist):
		run.storeFailed = true
		reason := storageReason(err)
		if reason == "StorageUnavailable" {
			reason = "LedgerUnreachable"
		}
		return run.wait(v1alpha1.CampaignPending, reason, fmt.Sprintf("reading the plan at %s: %v", run.loc, err))
	}

	// No plan yet: check what the plan Job would fail on slowly, then run it.
	if ok, err := run.checkQueries(ctx); !ok || err != nil {
		return ok, err
	}
	var job batchv1.Job
	err = run.r.Get(ctx, client.ObjectKey{Namespace: c.Namespace, Name: PlanJobName(c.Name)}, &job)
	if apierrors.IsNotFound(err) {
		spec, err := campaignSearch(c)
		if err != nil {
			return run.fail("InvalidSearch", truncate("the campaign's search is invalid; fix it in a new campaign: "+err.Error(), 1024))
		}
		if err := run.policyViolation(); err != nil {
			return run.refuse(err)
		}
		job, err := planJob(c, spec, run.db, run.loc, run.r.image(c))
		if err != nil {
			return false, err
		}
		if err := run.createJob(ctx, job, "planning"); err != nil {
			return false, err
		}
		run.normal("PlanStarted", "Plan", fmt.Sprintf("planning Job %s started", job.Name))
		return run.wait(v1alpha1.CampaignPlanning, "Planning", fmt.Sprintf("planning Job %s reads the queries and cuts chunks", job.Name))
	}
	if err != nil {
		return false, fmt.Errorf("reading planning Job: %w", err)
	}
	switch {
	case jobCondition(&job, batchv1.JobFailed):
		return run.fail("PlanFailed", "planning failed: "+podFailure(ctx, podReader(run.r.Pods, run.r.Client), c.Namespace, job.Name, jobMessage(&job)))
	case jobCondition(&job, batchv1.JobComplete):
		// The plan may have been written a moment ago; an eventually
		// consistent store may not list it yet.
		return run.wait(v1alpha1.CampaignPlanning, "Planning", fmt.Sprintf("planning Job %s finished; waiting for the plan at %s", job.Name, run.loc))
	}
	return run.wait(v1alpha1.CampaignPlanning, "Planning", fmt.Sprintf("planning Job %s reads the queries and cuts chunks", job.Name))
}

// planRead records what the status keeps of the plan, until a status
// write has kept it: its ETag, its letters and the cost estimate.
func (run *campaignRun) planRead(ctx context.Context, l *ledger.Ledger) {
	s := &run.c.Status
	if s.PlanETag == "" {
		s.PlanETag = l.PlanETag()
	}
	if s.QueryLetters == 0 {
		run.estimateCost(ctx, l.Plan().Queries.Letters)
	}
}

// reopenLedger opens the campaign's ledger again with this reconcile's
// store, replacing the cached handle; a plan.json other than the one
// first read fails the campaign. When the store does not answer the old
// handle is kept, and the ledger phase reports it.
func (run *campaignRun) reopenLedger(ctx context.Context, access string) (bool, error) {
	l, err := ledger.Open(ctx, run.store, ledger.Options{})
	if errors.Is(err, objstore.ErrNotExist) {
		err = fmt.Errorf("%w: %s was deleted", ledger.ErrPlanChanged, run.store.URL(ledger.PlanKey))
	} else if err == nil && l.PlanETag() != run.ledger.PlanETag() {
		err = fmt.Errorf("%w: %s has ETag %s, first read with %s", ledger.ErrPlanChanged, run.store.URL(ledger.PlanKey), l.PlanETag(), run.ledger.PlanETag())
	}
	switch {
	case errors.Is(err, ledger.ErrPlanChanged):
		return run.planChanged(ctx, err)
	case err != nil:
		return true, nil
	}
	run.ledger = l
	run.r.ledgers.Store(run.c.UID, &cachedLedger{key: client.ObjectKeyFromObject(run.c), l: l, access: access})
	return true, nil
}

// planChanged fails a campaign whose plan.json was edited or deleted
// while it ran, and stops its partitions: every chunk would otherwise
// split down to failed single queries and the campaign end Complete with
// an empty result.
func (run *campaignRun) planChanged(ctx context.Context, err error) (bool, error) {
	run.fail("PlanChanged", truncate("the campaign's plan.json was edited or deleted while it ran, so its chunks no longer match what was planned; start a new campaign: "+err.Error(), 1024))
	return false, run.cleanupPartitions(ctx, "plan changed")
}

// storeAccess identifies the output store's endpoint and credentials: the
// spec's fields and the resourceVersions of the Secret and caBundle
// ConfigMap it names. A change to any (a rotated key) reopens the cached
// ledger; one that cannot be read counts as a change.
func (run *campaignRun) storeAccess(ctx context.Context) string {
	out := run.c.Spec.Output
	access := fmt.Sprintf("%s|%s|%t|%v|%v", out.Endpoint, out.Region, out.Anonymous, out.CredentialsSecretRef, out.CABundle)
	if ref := out.CredentialsSecretRef; ref != nil {
		var sec corev1.Secret
		if err := run.stores.Secrets.Get(ctx, client.ObjectKey{Namespace: run.c.Namespace, Name: ref.Name}, &sec); err != nil {
			return access + "|unread"
		}
		access += "|secret " + sec.ResourceVersion
	}
	if ca := out.CABundle; ca != nil {
		var cm corev1.ConfigMap
		if err := run.stores.Secrets.Get(ctx, client.ObjectKey{Namespace: run.c.Namespace, Name: ca.Name}, &cm); err != nil {
			return access + "|unread"
		}
		access += "|ca " + cm.ResourceVersion
	}
	return access
}

// checkQueries fails the campaign at once, naming the field, when the
// queries object does not exist.
func (run *campaignRun) checkQueries(ctx context.Context) (bool, error) {
	c := run.c
	url := queriesURL(c)
	bucket, key := splitLocation(url)
	store := c.Spec.Output
	if qs := c.Spec.Queries.Storage; qs != nil {
		if qs.CredentialsSecretRef == nil && !qs.Anonymous && !run.stores.Policy.AllowOperatorIdentity {
			// Only the pods' identity reaches them: the planning Job
			// finds a missing object.
			return true, nil
		}
		store = *qs
	}
	st, err := run.stores.Open(ctx, c.Namespace, store, bucket, "")
	if err != nil {
		if qs := c.Spec.Queries.Storage; qs != nil {
			return run.waitStore("spec.queries.storage", err)
		}
		return run.waitStorage(err)
	}
	countStoreRead(readQueriesCheck)
	if _, err := run.r.Bounds.bound(st).Stat(ctx, key); errors.Is(err, objstore.ErrNotExist) {
		return run.fail("QueriesNotFound", fmt.Sprintf("spec.queries: object %s does not exist", url))
	} else if err != nil {
		run.storeFailed = true
		return run.wait(v1alpha1.CampaignPending, storageReason(err), fmt.Sprintf("spec.queries: %s: %v", url, err))
	}
	return true, nil
}

// planMismatch says how a plan found at the campaign's location differs
// from what the campaign asks for; "" when it is this campaign's.
func planMismatch(p *ledger.Plan, c *v1alpha1.SearchCampaign, db *v1alpha1.BlastDatabase) string {
	var diffs []string
	// The operator's campaigns read only object stores: a plan naming a
	// local path is never theirs, and would have partitions read their own
	// pod's filesystem.
	if err := p.CheckRemote(); err != nil {
		diffs = append(diffs, err.Error())
	}
	check := func(field, got, want string) {
		if got != want {
			diffs = append(diffs, fmt.Sprintf("%s is %q there, %q here", field, got, want))
		}
	}
	check("queries", p.Queries.Location, queriesURL(c))
	check("database", p.Database.Location, db.Status.Location)
	check("program", string(p.Search.Program), string(c.Spec.Program))
	// The whole search, not just its program: a campaign recreated with
	// another evalue, outfmt or option must not adopt the old result.
	if want, err := campaignSearch(c); err == nil {
		got, w := p.Search.Request(), want.Request()
		check("search.outfmt", got.Outfmt, w.Outfmt)
		check("search.maxTargetSeqs", strconv.Itoa(got.MaxTargetSeqs), strconv.Itoa(w.MaxTargetSeqs))
		check("search.evalue", strconv.FormatFloat(got.Evalue, 'g', -1, 64), strconv.FormatFloat(w.Evalue, 'g', -1, 64))
		check("search.topHits", got.TopHits, w.TopHits)
		check("search.transfer", got.Transfer, w.Transfer)
		check("search.batching", got.Batching, w.Batching)
		check("search.options", strings.Join(slices.Sorted(slices.Values(got.Options)), " "), strings.Join(slices.Sorted(slices.Values(w.Options)), " "))
	}
	return strings.Join(diffs, "; ")
}

func jobCondition(job *batchv1.Job, t batchv1.JobConditionType) bool {
	for _, c := range job.Status.Conditions {
		if c.Type == t && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

func jobMessage(job *batchv1.Job) string {
	for _, c := range job.Status.Conditions {
		if c.Type == batchv1.JobFailed && c.Status == corev1.ConditionTrue {
			return strings.TrimSpace(c.Reason + ": " + c.Message)
		}
	}
	return "the Job failed"
}

// podReader is pods, or c where none is set (reconcilers built by tests).
func podReader(pods, c client.Reader) client.Reader {
	if pods != nil {
		return pods
	}
	return c
}

// podFailure is the last failed pod's termination message (the tail of
// its log, FallbackToLogsOnError), which names what was wrong; else def.
func podFailure(ctx context.Context, c client.Reader, namespace, jobName, def string) string {
	var pods corev1.PodList
	if err := c.List(ctx, &pods, client.InNamespace(namespace), client.MatchingLabels{"job-name": jobName}); err != nil {
		return def
	}
	var msg string
	var at int64
	for _, p := range pods.Items {
		for _, s := range p.Status.ContainerStatuses {
			if t := s.State.Terminated; t != nil && t.ExitCode != 0 && t.Message != "" && t.FinishedAt.Unix() >= at {
				msg, at = strings.TrimSpace(t.Message), t.FinishedAt.Unix()
			}
		}
	}
	if msg == "" {
		return def
	}
	return msg
}

func (r *CampaignReconciler) image(c *v1alpha1.SearchCampaign) string {
	if c.Spec.Partitions.Image != "" {
		return c.Spec.Partitions.Image
	}
	return r.WorkerImage
}
