package controllers

import (
	"fmt"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/blastfleet/blastfleet/internal/burst"
	"github.com/blastfleet/blastfleet/internal/objstore"
	"github.com/blastfleet/blastfleet/internal/policy"
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
}

// Setup registers both reconcilers and the metrics with the manager.
func Setup(mgr ctrl.Manager, cfg Config) error {
	if err := objstore.CheckCABundle(cfg.CABundle); err != nil {
		return fmt.Errorf("--ca-bundle: %w", err)
	}
	stores := StoreOpener{Secrets: mgr.GetAPIReader(), Policy: cfg.Policy, CABundle: cfg.CABundle}
	db := &DatabaseReconciler{
		Client: mgr.GetClient(), Scheme: mgr.GetScheme(), Recorder: mgr.GetEventRecorder("blastfleet-database"),
		Stores: stores, WorkerImage: cfg.WorkerImage, PollInterval: cfg.PollInterval, Policy: cfg.Policy,
	}
	if err := db.SetupWithManager(mgr); err != nil {
		return err
	}
	sc := &CampaignReconciler{
		Client: mgr.GetClient(), Scheme: mgr.GetScheme(), Recorder: mgr.GetEventRecorder("blastfleet-campaign"),
		Stores: stores, Executor: MPIJobExecutor{TTLSecondsAfterFinished: int32(cfg.PartitionTTL / time.Second)},
		WorkerImage: cfg.WorkerImage, PollInterval: cfg.PollInterval, WindDown: cfg.WindDown, Site: cfg.Site, Policy: cfg.Policy,
		Burst: cfg.Burst,
	}
	if err := sc.SetupWithManager(mgr); err != nil {
		return err
	}
	return registerMetrics(mgr)
}
