package operator

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/ledger"
	"github.com/blastfleet/blastfleet/internal/testenv/testkit"
)

// TestPlanChanged: a plan.json edited or deleted while the campaign runs
// fails it as PlanChanged and stops its partitions, instead of every chunk
// splitting down to failed single queries and the campaign ending
// Complete with an empty result (issue 30, finding 6).
func TestPlanChanged(t *testing.T) {
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

// TestLedgerKeyRotation: after the store's keys are rotated and the
// campaign's Secret updated, the operator reads the ledger with the new
// keys (its cached handle is opened again) instead of reporting
// LedgerUnreachable until it restarts (issue 30, finding 11).
func TestLedgerKeyRotation(t *testing.T) {
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
