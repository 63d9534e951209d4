package operator

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/ledger"
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
