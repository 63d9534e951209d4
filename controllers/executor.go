package controllers

import (
	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers/executor"
	"github.com/blastfleet/blastfleet/controllers/executor/argo"
	"github.com/blastfleet/blastfleet/controllers/executor/mpijob"
)

// newExecutors registers the executors the operator runs: the one place
// a new kind of partition object is added. Argo's runs only where the
// API server serves Workflows; elsewhere its campaigns wait, told why.
func newExecutors(ttlSeconds int32, argoInstalled bool) executor.Registry {
	var r executor.Registry
	r.Register(mpijob.Executor{TTLSecondsAfterFinished: ttlSeconds})
	if argoInstalled {
		r.Register(argo.Executor{TTLSecondsAfterFinished: ttlSeconds})
	} else {
		r.Unavailable(v1alpha1.ExecutorArgo, argo.ErrMissing)
	}
	return r
}

// executorFor is the executor of the campaign's spec.executor.
func (r *CampaignReconciler) executorFor(c *v1alpha1.SearchCampaign) (executor.Executor, error) {
	return r.Executors.For(c.Spec.Executor)
}
