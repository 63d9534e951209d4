package operator

import (
	"context"
	"fmt"
	"testing"
	"time"

	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
)

// TestCampaignMetrics: the operator's per-campaign series follow the
// campaigns' status and disappear when a campaign is deleted.
func TestCampaignMetrics(t *testing.T) {
	h := newHarness(t)
	h.readyDatabase("sprot", v1alpha1.DatabaseProtein)
	h.putQueries("metered")
	c := h.campaign("metered", "sprot", 2)
	h.create(c)
	l := h.writePlan("metered", "sprot", 3)
	h.waitPartitions("metered", "metered-p0-r0", "metered-p1-r0")
	// A partition's BLAST was OOM-killed on one chunk: counted by reason.
	ls, err := l.Acquire(context.Background(), "p0")
	if err != nil {
		t.Fatal(err)
	}
	if err := ls.Fail(context.Background(), ledger.FailureReason{Message: "blastp killed", Signal: "SIGKILL"}); err != nil {
		t.Fatal(err)
	}
	h.eventually("failed attempts by reason", 20*time.Second, func() (bool, string) {
		sig := gauge("blastfleet_campaign_failed_attempts_total", map[string]string{"campaign": "metered", "reason": "signal"})
		exit := gauge("blastfleet_campaign_failed_attempts_total", map[string]string{"campaign": "metered", "reason": "exit_code"})
		return sig == 1 && exit == 0, fmt.Sprintf("signal %v, exit_code %v (want 1 and a zero series)", sig, exit)
	})
	if fa := h.get("metered").Status.Chunks.FailedAttempts; fa.Signal != 1 {
		t.Errorf("status chunks.failedAttempts %+v, want signal 1", fa)
	}
	h.eventually("chunk and partition series", 20*time.Second, func() (bool, string) {
		total := gauge("blastfleet_campaign_chunks", map[string]string{"campaign": "metered", "state": "total"})
		desired := gauge("blastfleet_campaign_partitions", map[string]string{"campaign": "metered", "state": "desired"})
		running := gauge("blastfleet_campaigns", map[string]string{"phase": "Running"})
		return total == 2 && desired == 2 && running == 1, fmt.Sprintf("chunks total %v, partitions desired %v, running campaigns %v", total, desired, running)
	})
	if err := h.c.Delete(context.Background(), h.get("metered")); err != nil {
		t.Fatal(err)
	}
	h.eventually("series gone", 20*time.Second, func() (bool, string) {
		n := gauge("blastfleet_campaign_chunks", map[string]string{"campaign": "metered", "state": "total"})
		return n == -1, fmt.Sprint(n)
	})
}

// gauge is the value of the first series of name matching labels, or -1.
func gauge(name string, labels map[string]string) float64 {
	mfs, err := crmetrics.Registry.Gather()
	if err != nil {
		return -2
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	series:
		for _, m := range mf.GetMetric() {
			for k, v := range labels {
				if !labelIs(m, k, v) {
					continue series
				}
			}
			if m.GetGauge() != nil {
				return m.GetGauge().GetValue()
			}
			return m.GetCounter().GetValue()
		}
	}
	return -1
}
