package controllers

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
)

// campaignCollector reports campaigns from their status at scrape time,
// read from the manager's cache: series of a deleted campaign disappear
// with it, instead of lingering as counters would.
type campaignCollector struct {
	reader client.Reader

	phase, chunks, queries, partitions, retries, failed, replaced *prometheus.Desc
	siteQueries, siteRunning, siteRate                            *prometheus.Desc
	deadline, estimated                                           *prometheus.Desc
	cost, siteCost, estimatedCost                                 *prometheus.Desc
}

func newCampaignCollector(r client.Reader) *campaignCollector {
	l := []string{"namespace", "campaign"}
	return &campaignCollector{
		reader:     r,
		phase:      prometheus.NewDesc("blastfleet_campaigns", "SearchCampaigns by phase.", []string{"phase"}, nil),
		chunks:     prometheus.NewDesc("blastfleet_campaign_chunks", "A campaign's chunks by state (total, committed, leased, failed, pending), from its ledger.", append(l, "state"), nil),
		queries:    prometheus.NewDesc("blastfleet_campaign_queries", "A campaign's queries by state (total, done, failed), from its ledger.", append(l, "state"), nil),
		partitions: prometheus.NewDesc("blastfleet_campaign_partitions", "A campaign's partitions by state (desired, running, queued, failed).", append(l, "state"), nil),
		retries:    prometheus.NewDesc("blastfleet_campaign_chunk_retries_total", "Chunk attempts beyond each chunk's first, from the ledger.", l, nil),
		failed: prometheus.NewDesc("blastfleet_campaign_failed_attempts_total",
			"A campaign's chunk attempts that ended without a result, by reason (exit_code, signal, error, abandoned), from its ledger.", append(l, "reason"), nil),
		replaced:    prometheus.NewDesc("blastfleet_campaign_partition_replacements_total", "Failed partitions replaced.", l, nil),
		siteQueries: prometheus.NewDesc("blastfleet_campaign_site_queries_done", "A campaign's queries done by each site (this cluster's partitions and each HPC site), from its ledger.", append(l, "site"), nil),
		siteRunning: prometheus.NewDesc("blastfleet_campaign_site_chunks_running", "Chunks each site's partitions search now, from the campaign's ledger.", append(l, "site"), nil),
		siteRate:    prometheus.NewDesc("blastfleet_campaign_site_letters_per_second", "Query letters each site committed per second since its first attempt, from the campaign's ledger.", append(l, "site"), nil),
		deadline:    prometheus.NewDesc("blastfleet_campaign_deadline_timestamp_seconds", "A campaign's spec.deadline, as a Unix time.", l, nil),
		estimated: prometheus.NewDesc("blastfleet_campaign_estimated_completion_timestamp_seconds",
			"When a campaign with a deadline is expected to be done at the sites' measured rates (status.estimatedCompletion), as a Unix time.", l, nil),
		cost: prometheus.NewDesc("blastfleet_campaign_core_seconds",
			"What a finished campaign cost: its partition runs' worker slots times their wall time (status.coreSeconds).", l, nil),
		siteCost: prometheus.NewDesc("blastfleet_campaign_site_core_seconds", "A finished campaign's core-seconds by site (status.sites[].coreSeconds).", append(l, "site"), nil),
		estimatedCost: prometheus.NewDesc("blastfleet_campaign_estimated_core_seconds",
			"What a campaign should cost, from a finished one like it (status.estimatedCoreSeconds).", l, nil),
	}
}

func (c *campaignCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.phase, c.chunks, c.queries, c.partitions, c.retries, c.failed, c.replaced, c.siteQueries, c.siteRunning, c.siteRate, c.deadline, c.estimated,
		c.cost, c.siteCost, c.estimatedCost} {
		ch <- d
	}
}

func (c *campaignCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var list v1alpha1.SearchCampaignList
	if err := c.reader.List(ctx, &list); err != nil {
		log.FromContext(ctx).Error(err, "listing campaigns for metrics")
		return
	}
	phases := map[v1alpha1.CampaignPhase]float64{}
	for _, p := range []v1alpha1.CampaignPhase{v1alpha1.CampaignPending, v1alpha1.CampaignPlanning, v1alpha1.CampaignRunning,
		v1alpha1.CampaignSuspended, v1alpha1.CampaignComplete, v1alpha1.CampaignFailed} {
		phases[p] = 0
	}
	gauge := func(d *prometheus.Desc, v int32, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, float64(v), labels...)
	}
	for i := range list.Items {
		sc := &list.Items[i]
		s := sc.Status
		phase := s.Phase
		if phase == "" {
			phase = v1alpha1.CampaignPending
		}
		phases[phase]++
		ns, name := sc.Namespace, sc.Name
		for state, v := range map[string]int32{"total": s.Chunks.Total, "committed": s.Chunks.Committed, "leased": s.Chunks.Leased, "failed": s.Chunks.Failed, "pending": s.Chunks.Pending} {
			gauge(c.chunks, v, ns, name, state)
		}
		for state, v := range map[string]int32{"total": s.Queries.Total, "done": s.Queries.Done, "failed": s.Queries.Failed} {
			gauge(c.queries, v, ns, name, state)
		}
		p := s.Partitions
		for state, v := range map[string]int32{"desired": p.Desired, "running": p.Running, "queued": p.Queued, "failed": p.Failed} {
			gauge(c.partitions, v, ns, name, state)
		}
		ch <- prometheus.MustNewConstMetric(c.retries, prometheus.CounterValue, float64(s.Chunks.Retries), ns, name)
		fa := s.Chunks.FailedAttempts
		// Every reason, zero included: a bounded set, and panels and
		// alerts see a counter from the start rather than no series.
		for reason, v := range map[string]int32{"exit_code": fa.ExitCode, "signal": fa.Signal, "error": fa.Error, "abandoned": fa.Abandoned} {
			ch <- prometheus.MustNewConstMetric(c.failed, prometheus.CounterValue, float64(v), ns, name, reason)
		}
		ch <- prometheus.MustNewConstMetric(c.replaced, prometheus.CounterValue, float64(p.Replaced), ns, name)
		for _, site := range s.Sites {
			gauge(c.siteQueries, site.QueriesDone, ns, name, site.Name)
			gauge(c.siteRunning, site.Running, ns, name, site.Name)
			ch <- prometheus.MustNewConstMetric(c.siteRate, prometheus.GaugeValue, float64(site.LettersPerSecond), ns, name, site.Name)
			if s.CoreSeconds != nil {
				ch <- prometheus.MustNewConstMetric(c.siteCost, prometheus.GaugeValue, float64(site.CoreSeconds), ns, name, site.Name)
			}
		}
		if v := s.CoreSeconds; v != nil {
			ch <- prometheus.MustNewConstMetric(c.cost, prometheus.GaugeValue, float64(*v), ns, name)
		}
		if v := s.EstimatedCoreSeconds; v != nil {
			ch <- prometheus.MustNewConstMetric(c.estimatedCost, prometheus.GaugeValue, float64(*v), ns, name)
		}
		if t, ok := deadlineOf(sc); ok {
			ch <- prometheus.MustNewConstMetric(c.deadline, prometheus.GaugeValue, float64(t.Unix()), ns, name)
		}
		if t := s.EstimatedCompletion; t != nil {
			ch <- prometheus.MustNewConstMetric(c.estimated, prometheus.GaugeValue, float64(t.Unix()), ns, name)
		}
	}
	for p, n := range phases {
		ch <- prometheus.MustNewConstMetric(c.phase, prometheus.GaugeValue, n, string(p))
	}
}

// registerMetrics adds the collector to controller-runtime's registry,
// served on the manager's metrics endpoint beside controller-runtime's own
// (reconcile errors and latency per controller).
func registerMetrics(mgr ctrl.Manager) error {
	c := newCampaignCollector(mgr.GetCache())
	err := crmetrics.Registry.Register(c)
	var dup prometheus.AlreadyRegisteredError
	if errors.As(err, &dup) {
		// A manager restarted in the same process (tests): the new one's
		// cache replaces the stopped one's.
		crmetrics.Registry.Unregister(dup.ExistingCollector)
		err = crmetrics.Registry.Register(c)
	}
	return err
}
