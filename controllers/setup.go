package controllers

import (
	"fmt"
	"net/url"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/blastfleet/blastfleet/internal/operator/argowf"
	"github.com/blastfleet/blastfleet/internal/operator/burst"
	"github.com/blastfleet/blastfleet/internal/operator/policy"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// Config is the operator's configuration.
type Config struct {
	WorkerImage  string
	PollInterval time.Duration
	PartitionTTL time.Duration
	// WindDown: see CampaignReconciler.WindDown (0: the default, 1 min).
	WindDown time.Duration
	// Site: see CampaignReconciler.Site.
	Site string
	// Burst: see CampaignReconciler.Burst.
	Burst burst.Policy
	// Policy restricts what campaigns and databases may ask for.
	Policy policy.Policy
	// CABundle: see StoreOpener.CABundle.
	CABundle string
	// STSEndpoint: see StoreOpener.STSEndpoint.
	STSEndpoint string
	// DefaultStoreEndpoint: see StoreOpener.DefaultEndpoint.
	DefaultStoreEndpoint string
	// Bounds limit both reconcilers' store work (zero: the defaults).
	Bounds StoreBounds
	// SummaryMaxAge: see CampaignReconciler.SummaryMaxAge.
	SummaryMaxAge time.Duration
	// PartitionNetworkPolicy: see CampaignReconciler.PartitionNetworkPolicy.
	PartitionNetworkPolicy bool
	// NamespaceSelector: a label selector of the namespaces whose
	// campaigns and databases this operator reconciles ("": all);
	// DefaultNamespaceSelector leaves those a release of their own claims.
	NamespaceSelector string
}

// Setup registers both reconcilers and the metrics with the manager.
func Setup(mgr ctrl.Manager, cfg Config) error {
	if err := objstore.CheckCABundle(cfg.CABundle); err != nil {
		return fmt.Errorf("--ca-bundle: %w", err)
	}
	if e := cfg.STSEndpoint; e != "" {
		if u, err := url.Parse(e); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
			return fmt.Errorf("--sts-endpoint %q: want http(s)://host[:port]", e)
		}
	}
	sel, err := parseNamespaceSelector(cfg.NamespaceSelector)
	if err != nil {
		return err
	}
	owned := namespaces{reader: mgr.GetClient(), selector: sel}
	stores := StoreOpener{Secrets: mgr.GetAPIReader(), Policy: cfg.Policy, CABundle: cfg.CABundle, STSEndpoint: cfg.STSEndpoint,
		DefaultEndpoint: cfg.DefaultStoreEndpoint}
	db := &DatabaseReconciler{
		Client: mgr.GetClient(), Pods: mgr.GetAPIReader(), Scheme: mgr.GetScheme(), Recorder: mgr.GetEventRecorder("blastfleet-database"),
		Stores: stores, WorkerImage: cfg.WorkerImage, PollInterval: cfg.PollInterval, Policy: cfg.Policy, Bounds: cfg.Bounds,
		Namespaces: owned,
	}
	argo, err := argoInstalled(mgr)
	if err != nil {
		return err
	}
	db.Argo, db.TTLSecondsAfterFinished = argo, int32(cfg.PartitionTTL/time.Second)
	if err := db.SetupWithManager(mgr); err != nil {
		return err
	}
	sc := &CampaignReconciler{
		Client: mgr.GetClient(), Pods: mgr.GetAPIReader(), Scheme: mgr.GetScheme(), Recorder: mgr.GetEventRecorder("blastfleet-campaign"),
		Stores: stores, Executors: newExecutors(int32(cfg.PartitionTTL/time.Second), argo),
		WorkerImage: cfg.WorkerImage, PollInterval: cfg.PollInterval, WindDown: cfg.WindDown, Site: cfg.Site, Policy: cfg.Policy,
		Burst: cfg.Burst, Bounds: cfg.Bounds, Namespaces: owned, PartitionNetworkPolicy: cfg.PartitionNetworkPolicy,
		SummaryMaxAge: cfg.SummaryMaxAge,
	}
	ctrl.Log.WithName("setup").Info("campaign executors", "mpijob", true, "argo", argo)
	if err := sc.SetupWithManager(mgr); err != nil {
		return err
	}
	return registerMetrics(mgr)
}

// argoInstalled reports whether the API server serves Argo's Workflow
// kind: only then do campaigns of executor argo run (and the operator
// watches Workflows).
func argoInstalled(mgr ctrl.Manager) (bool, error) {
	_, err := mgr.GetRESTMapper().RESTMapping(argowf.Workflow.GroupKind(), argowf.Workflow.Version)
	switch {
	case err == nil:
		return true, nil
	case meta.IsNoMatchError(err):
		return false, nil
	}
	return false, fmt.Errorf("looking for Argo Workflows (argoproj.io Workflow): %w", err)
}
