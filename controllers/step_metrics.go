package controllers

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// campaignPhaseSeconds breaks controller-runtime's reconcile latency of
// searchcampaign down by step: which of the API server, the object store or
// the operator's own work a slow reconcile waited on.
var campaignPhaseSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
	Name: "blastfleet_operator_campaign_step_seconds",
	Help: "Time a SearchCampaign reconcile spent in each step (database, storage, stores, plan, ledger, observe, finish, deadline, policy, burst, partitions, wind-down, cost, status).",
	// controller-runtime's reconcile buckets, finer below 100 ms where the
	// operator's target lies.
	Buckets: []float64{.001, .0025, .005, .01, .025, .05, .075, .1, .15, .25, .5, 1, 2.5, 5, 10, 30, 60},
}, []string{"step"})

func init() { crmetrics.Registry.MustRegister(campaignPhaseSeconds) }

// timed runs one step of a reconcile and records how long it took.
func timed[T any](ctx context.Context, step string, f func(context.Context) (T, error)) (T, error) {
	start := time.Now()
	v, err := f(ctx)
	campaignPhaseSeconds.WithLabelValues(step).Observe(time.Since(start).Seconds())
	return v, err
}
