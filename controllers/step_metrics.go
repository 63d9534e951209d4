package controllers

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// campaignStepSeconds breaks controller-runtime's reconcile latency of
// searchcampaign down by step: which of the API server, the object store or
// the operator's own work a slow reconcile waited on.
var campaignStepSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
	Name: "blastfleet_operator_campaign_step_seconds",
	Help: "Time a SearchCampaign reconcile spent in each step (database, storage, stores, plan, ledger, observe, finish, deadline, policy, burst, partitions, wind-down, cost, status).",
	// controller-runtime's reconcile buckets, finer below 100 ms where the
	// operator's target lies.
	Buckets: []float64{.001, .0025, .005, .01, .025, .05, .075, .1, .15, .25, .5, 1, 2.5, 5, 10, 30, 60},
}, []string{"step"})

func init() { crmetrics.Registry.MustRegister(campaignStepSeconds) }

// observeStep records how long step took since start.
func observeStep(step string, start time.Time) {
	campaignStepSeconds.WithLabelValues(step).Observe(time.Since(start).Seconds())
}
