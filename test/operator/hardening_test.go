package operator

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/test/support/faultproxy"
	"github.com/blastfleet/blastfleet/test/support/testenv/testkit"
)

// TestPlanChanged: a plan.json edited or deleted while the campaign runs
// fails it as PlanChanged and stops its partitions, instead of every chunk
// splitting down to failed single queries and the campaign ending
// Complete with an empty result (issue 30, finding 6).
func TestPlanChanged(t *testing.T) {
	t.Parallel() // its own API server, MinIO and operator
	h := newHarness(t)
	h.readyDatabase("sprot", v1alpha1.DatabaseProtein)
	for _, tc := range []struct {
		name   string
		change func(name string)
	}{
		{"edited", func(name string) {
			st := h.store("campaigns/" + h.ns + "/" + name)
			data, _, err := st.GetBytes(context.Background(), ledger.PlanKey)
			if err != nil {
				t.Fatal(err)
			}
			edited := strings.Replace(string(data), `"count": 3`, `"count": 4`, 1)
			if edited == string(data) {
				t.Fatalf("plan %s: no query count to edit", data)
			}
			if err := st.Put(context.Background(), ledger.PlanKey, strings.NewReader(edited), int64(len(edited))); err != nil {
				t.Fatal(err)
			}
		}},
		{"edited-while-down", func(name string) {
			h.whileOperatorDown(name, func() {
				st := h.store("campaigns/" + h.ns + "/" + name)
				data, _, err := st.GetBytes(context.Background(), ledger.PlanKey)
				if err != nil {
					t.Fatal(err)
				}
				edited := strings.Replace(string(data), `"count": 3`, `"count": 4`, 1)
				if err := st.Put(context.Background(), ledger.PlanKey, strings.NewReader(edited), int64(len(edited))); err != nil {
					t.Fatal(err)
				}
			})
		}},
		{"deleted-while-down", func(name string) {
			h.whileOperatorDown(name, func() {
				if err := h.store("campaigns/"+h.ns+"/"+name).Delete(context.Background(), ledger.PlanKey); err != nil {
					t.Fatal(err)
				}
			})
		}},
		{"deleted", func(name string) {
			if err := h.store("campaigns/"+h.ns+"/"+name).Delete(context.Background(), ledger.PlanKey); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		// Not subtests: the harness fails the test it was made with.
		{
			name := "plan-" + tc.name
			h.putQueries(name)
			h.create(h.campaign(name, "sprot", 1))
			h.writePlan(name, "sprot", 3)
			h.waitPartitions(name, name+"-p0-r0")
			tc.change(name)
			got := h.waitPhase(name, v1alpha1.CampaignFailed, 20*time.Second)
			cond := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionFailed)
			if cond == nil || cond.Reason != "PlanChanged" || !strings.Contains(cond.Message, "plan.json") {
				t.Errorf("%s: Failed condition %+v, want PlanChanged naming plan.json", name, cond)
			}
			h.waitPartitions(name) // stopped: none left
		}
	}
}

// whileOperatorDown stops the operator once it has recorded campaign
// name's plan, runs change, and starts it again.
func (h *harness) whileOperatorDown(name string, change func()) {
	h.t.Helper()
	h.eventually("plan.json's ETag in status", 20*time.Second, func() (bool, string) {
		return h.get(name).Status.PlanETag != "", "no status.planETag"
	})
	h.stopOperator()
	change()
	h.startOperator()
}

// TestLedgerKeyRotation: after the store's keys are rotated and the
// campaign's Secret updated, the operator reads the ledger with the new
// keys (its cached handle is opened again) instead of reporting
// LedgerUnreachable until it restarts (issue 30, finding 11).
func TestLedgerKeyRotation(t *testing.T) {
	t.Parallel() // its own API server, MinIO and operator
	h := newHarness(t)
	h.readyDatabase("sprot", v1alpha1.DatabaseProtein)
	h.putQueries("rotate")
	h.create(h.campaign("rotate", "sprot", 1))
	h.writePlan("rotate", "sprot", 3)
	h.waitPartitions("rotate", "rotate-p0-r0")
	h.eventually("ledger read", 20*time.Second, func() (bool, string) {
		c := h.get("rotate")
		return c.Status.Chunks.Total == 2, fmt.Sprintf("chunks %+v", c.Status.Chunks)
	})

	// Rotate: the server takes new root keys, the old ones stop working.
	h.minio.Stop(t)
	h.minio.AccessKey, h.minio.SecretKey = "rotated"+h.minio.AccessKey[2:], h.minio.SecretKey[:10]+"rotated0123"
	h.minio.Start(t)
	var sec corev1.Secret
	if err := h.c.Get(context.Background(), client.ObjectKey{Namespace: h.ns, Name: secretName}, &sec); err != nil {
		t.Fatal(err)
	}
	sec.Data = testkit.MinIOSecret(h.minio, h.ns, secretName).Data
	if err := h.c.Update(context.Background(), &sec); err != nil {
		t.Fatal(err)
	}
	h.commitAll(h.ledgerOf("rotate"))
	h.eventually("every chunk committed, read with the new keys", 30*time.Second, func() (bool, string) {
		c := h.get("rotate")
		cond := meta.FindStatusCondition(c.Status.Conditions, v1alpha1.ConditionDegraded)
		return c.Status.Chunks.Committed == 2, fmt.Sprintf("chunks %+v, Degraded %+v", c.Status.Chunks, cond)
	})
}

// slowTenant makes namespace ns a tenant whose campaign name writes to a
// store that answers nothing for an hour (the fault proxy holds every
// request), and returns the proxy.
func (h *harness) slowTenant(ns, name string) *faultproxy.Proxy {
	h.t.Helper()
	p, err := faultproxy.Start(h.minio.Endpoint, 1, faultproxy.Faults{AddedLatency: time.Hour})
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { p.Close() })
	h.create(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	h.create(testkit.MinIOSecret(h.minio, ns, secretName))
	home := h.ns
	h.ns = ns
	h.readyDatabase("sprot", v1alpha1.DatabaseProtein)
	c := h.campaign(name, "sprot", 1)
	h.ns = home
	c.Spec.Output.Endpoint = p.URL
	h.create(c)
	h.eventually("the slow tenant's store holding a request", 20*time.Second, func() (bool, string) {
		return p.Counts().Slowed > 0, fmt.Sprintf("%+v", p.Counts())
	})
	return p
}

// TestSlowStoreDoesNotStallOthers: a tenant whose store trickles (here:
// holds every request) does not stop another namespace's campaign from
// being planned, run and completed by the one shared operator (issue 30,
// finding 2: campaigns were reconciled one at a time, with no deadline).
func TestSlowStoreDoesNotStallOthers(t *testing.T) {
	t.Parallel() // its own API server, MinIO and operator
	h := newHarness(t)
	h.slowTenant("tenant-slow", "stuck")
	h.readyDatabase("sprot", v1alpha1.DatabaseProtein)
	h.putQueries("brisk")
	h.create(h.campaign("brisk", "sprot", 1))
	l := h.writePlan("brisk", "sprot", 3)
	parts := h.waitPartitions("brisk", "brisk-p0-r0")
	h.commitAll(l)
	h.assembleAsPartition(l)
	h.partitionExited(parts["brisk-p0-r0"])
	h.waitPhase("brisk", v1alpha1.CampaignComplete, 30*time.Second)
}

// TestSlowStoreTimesOut: the operator's requests to a store that answers
// nothing end at their deadline, and the campaign says so, instead of
// holding a reconcile worker for ever (issue 30, finding 2).
func TestSlowStoreTimesOut(t *testing.T) {
	t.Parallel() // its own API server, MinIO and operator
	h := newHarness(t)
	h.stopOperator()
	h.bounds = controllers.StoreBounds{RequestTimeout: time.Second, ReconcileTimeout: 3 * time.Second, MaxConcurrentReconciles: 1}
	h.startOperator()
	h.slowTenant("tenant-slow", "stuck")
	h.eventually("the stuck campaign reporting its store's deadline", 20*time.Second, func() (bool, string) {
		var c v1alpha1.SearchCampaign
		if err := h.c.Get(context.Background(), client.ObjectKey{Namespace: "tenant-slow", Name: "stuck"}, &c); err != nil {
			return false, err.Error()
		}
		cond := meta.FindStatusCondition(c.Status.Conditions, v1alpha1.ConditionReady)
		return cond != nil && cond.Status == metav1.ConditionFalse && strings.Contains(cond.Message, "deadline exceeded"),
			fmt.Sprintf("phase %s, Ready %+v", c.Status.Phase, cond)
	})
	// One worker, and still another tenant's campaign gets its turn.
	h.readyDatabase("sprot", v1alpha1.DatabaseProtein)
	h.putQueries("brisk")
	h.create(h.campaign("brisk", "sprot", 1))
	h.writePlan("brisk", "sprot", 3)
	h.waitPartitions("brisk", "brisk-p0-r0")
}

// TestPlanTooLarge: a plan.json larger than the operator reads whole is
// refused, naming the object and the limit, instead of being read into
// the shared operator's memory (issue 30, finding 2).
func TestPlanTooLarge(t *testing.T) {
	t.Parallel() // its own API server, MinIO and operator
	h := newHarness(t)
	h.readyDatabase("sprot", v1alpha1.DatabaseProtein)
	h.putQueries("huge")
	h.create(h.campaign("huge", "sprot", 1))
	big := `{"name": "huge", "padding": "` + strings.Repeat("x", controllers.DefaultMaxObjectBytes) + `"}`
	if err := h.store("campaigns/"+h.ns+"/huge").Put(context.Background(), ledger.PlanKey, strings.NewReader(big), int64(len(big))); err != nil {
		t.Fatal(err)
	}
	h.eventually("huge refused", 30*time.Second, func() (bool, string) {
		c := h.get("huge")
		cond := meta.FindStatusCondition(c.Status.Conditions, v1alpha1.ConditionReady)
		return cond != nil && cond.Reason == "ObjectTooLarge" && strings.Contains(cond.Message, "plan.json") &&
				strings.Contains(cond.Message, fmt.Sprint(controllers.DefaultMaxObjectBytes)),
			fmt.Sprintf("phase %s, Ready %+v", c.Status.Phase, cond)
	})
	if len(h.partitions("huge")) != 0 {
		t.Error("partitions created for a campaign whose plan was refused")
	}
}
