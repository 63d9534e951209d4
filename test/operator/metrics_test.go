package operator

import (
	"context"
	"fmt"
	"testing"
	"time"

	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
)

// TestCampaignMetrics: the operator's per-campaign series follow the
// campaigns' status and disappear when a campaign is deleted.
func TestCampaignMetrics(t *testing.T) {
	h := newHarness(t)
	h.readyDatabase("sprot", v1alpha1.DatabaseProtein)
	h.putQueries("metered")
	c := h.campaign("metered", "sprot", 2)
	h.create(c)
	h.writePlan("metered", "sprot", 3)
	h.waitPartitions("metered", "metered-p0-r0", "metered-p1-r0")
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
