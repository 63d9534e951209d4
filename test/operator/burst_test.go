package operator

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/operator/burst"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
)

// burstPolicy is the operator's hysteresis in these tests: seconds, not
// minutes.
var burstPolicy = burst.Policy{MinWindow: time.Second, Margin: 0.1, MinInterval: 2 * time.Second}

// TestBurstToDeadline: an HPC site whose measured rate is far too low for
// the deadline makes the operator add partitions up to partitions.max,
// saying why in an event and the OnSchedule condition; once the site
// catches up, the partitions added are removed again (down to min).
// Not parallel: it reads the operator's metrics, which live in
// controller-runtime's one registry, shared by every test's operator.
func TestBurstToDeadline(t *testing.T) {
	h := newHarness(t)
	h.readyDatabase("sprot", v1alpha1.DatabaseProtein)
	h.putQueries("burst")
	c := h.campaign("burst", "sprot", 1)
	c.Spec.Partitions.Min, c.Spec.Partitions.Max = ptr.To[int32](1), ptr.To[int32](3)
	c.Spec.Deadline = &v1alpha1.Deadline{After: &metav1.Duration{Duration: time.Hour}}
	h.create(c)
	h.writePlanLetters("burst", "sprot", 200, 1000) // 100 chunks of 1000 letters
	h.waitPartitions("burst", "burst-p0-r0")
	h.waitOnSchedule("burst", metav1.ConditionUnknown, burst.ReasonMeasuring, "no working site's rate is measured yet")

	// hpc-a searched one chunk in an hour: 99 h for the rest.
	hpc := h.siteLedger("burst", "hpc-a")
	hpc.at(time.Now().Add(-time.Hour))
	lease, err := hpc.l.Acquire(context.Background(), "hpc-a-job")
	if err != nil {
		t.Fatal(err)
	}
	hpc.at(time.Time{})
	h.commitLease(lease)
	// It goes on with the next chunk: a site with none running and no
	// recent commit would count as stopped.
	if _, err := hpc.l.Acquire(context.Background(), "hpc-a-job"); err != nil {
		t.Fatal(err)
	}
	h.waitPartitions("burst", "burst-p0-r0", "burst-p1-r0", "burst-p2-r0")
	h.waitEvent("burst", burst.ReasonAdding, corev1.EventTypeNormal, "adding 2 partitions (1 → 3): site hpc-a alone finishes at ")
	got := h.waitOnSchedule("burst", metav1.ConditionFalse, burst.ReasonWillMiss, "late even at the maximum (3)")
	if got.Status.Partitions.Desired != 3 || got.Status.EstimatedCompletion == nil || got.Status.LastScaleTime == nil {
		t.Errorf("desired %d, estimatedCompletion %v, lastScaleTime %v: want 3 and both set", got.Status.Partitions.Desired, got.Status.EstimatedCompletion, got.Status.LastScaleTime)
	}
	h.waitEvent("burst", burst.ReasonWillMiss, corev1.EventTypeWarning, "late even at the maximum (3)")
	labels := map[string]string{"campaign": "burst"}
	if dl, eta := gauge("blastfleet_campaign_deadline_timestamp_seconds", labels), gauge("blastfleet_campaign_estimated_completion_timestamp_seconds", labels); dl <= 0 || eta <= dl {
		t.Errorf("deadline series %v, estimated completion %v: want both, the estimate later", dl, eta)
	}

	// hpc-a catches up: 95 chunks in the hour, 1 running, 4 left.
	h.commitChunks(hpc.l, 94)
	h.waitPartitions("burst", "burst-p0-r0")
	// The commits land over several reconciles: the operator may step
	// down 3 → 2 → 1 as well as 3 → 1 (seen under load); either ends at 1.
	h.waitEvent("burst", burst.ReasonRemoving, corev1.EventTypeNormal, " → 1): the sites finish at ")
	got = h.waitOnSchedule("burst", metav1.ConditionTrue, burst.ReasonOnSchedule, "keeping 1 partition: with 1 finishing at ")
	if got.Status.Partitions.Desired != 1 || got.Status.Phase != v1alpha1.CampaignRunning {
		t.Errorf("desired %d, phase %s: want 1 partition, Running", got.Status.Partitions.Desired, got.Status.Phase)
	}
	if d := got.Spec.Deadline.After.Duration; !got.Status.EstimatedCompletion.Before(ptr.To(metav1.NewTime(got.Status.StartTime.Add(d)))) {
		t.Errorf("estimated completion %v is not before the deadline", got.Status.EstimatedCompletion)
	}
}

// siteClock is a ledger handle of another site, on a clock the test sets.
type siteClock struct {
	l  *ledger.Ledger
	mu sync.Mutex
	t  time.Time // zero: the real clock
}

func (s *siteClock) at(t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.t = t
}

func (s *siteClock) now() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.t.IsZero() {
		return time.Now()
	}
	return s.t
}

func (h *harness) siteLedger(campaign, site string) *siteClock {
	h.t.Helper()
	s := &siteClock{}
	l, err := ledger.Open(context.Background(), h.store("campaigns/"+h.ns+"/"+campaign), ledger.Options{Site: site, Now: s.now})
	if err != nil {
		h.t.Fatal(err)
	}
	s.l = l
	return s
}

// waitOnSchedule waits for the OnSchedule condition with status, reason
// and a message holding msg.
func (h *harness) waitOnSchedule(name string, status metav1.ConditionStatus, reason, msg string) *v1alpha1.SearchCampaign {
	h.t.Helper()
	var c *v1alpha1.SearchCampaign
	h.eventually("OnSchedule "+string(status)+"/"+reason, 20*time.Second, func() (bool, string) {
		c = h.get(name)
		cond := meta.FindStatusCondition(c.Status.Conditions, v1alpha1.ConditionOnSchedule)
		return cond != nil && cond.Status == status && cond.Reason == reason && strings.Contains(cond.Message, msg), describeCondition(cond)
	})
	return c
}

// waitEvent waits for an event on campaign name with reason and type,
// its note holding note.
func (h *harness) waitEvent(name, reason, typ, note string) {
	h.t.Helper()
	h.eventually("a "+reason+" event on "+name, 20*time.Second, func() (bool, string) {
		var evs eventsv1.EventList
		if err := h.c.List(context.Background(), &evs, client.InNamespace(h.ns)); err != nil {
			return false, err.Error()
		}
		var seen []string
		for _, e := range evs.Items {
			if e.Regarding.Name == name && e.Reason == reason {
				if e.Type == typ && strings.Contains(e.Note, note) {
					return true, ""
				}
				seen = append(seen, e.Type+": "+e.Note)
			}
		}
		return false, strings.Join(seen, "; ")
	})
}
