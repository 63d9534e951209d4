package operator

import (
	"reflect"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/plan/search/fromapi"
	"github.com/blastfleet/blastfleet/test/support/synth"
)

// TestCampaignSearchReachesBLAST: a campaign's blastOptions and evalue go
// from the CRD through the one conversion, whole as JSON to the real
// planning Job, into the plan unchanged, and the partitions give BLAST+
// the same options: the result equals blastp run with them on the
// unsharded database.
func TestCampaignSearchReachesBLAST(t *testing.T) {
	t.Parallel() // its own API server, MinIO and operator
	h, dir := newRunningHarness(t)
	db, queries := h.proteinDatabase("typed", synth.Options{Seed: 11, Families: 10, Members: 5, MinLen: 80, MaxLen: 200, Queries: 7, Unrelated: 15}, 2)

	c := h.campaign("typed", "typed", 1)
	c.Spec.Evalue = "1e-3"
	c.Spec.BlastOptions = []v1alpha1.BlastOption{{Name: "matrix", Value: "BLOSUM80"}, {Name: "word_size", Value: "2"}, {Name: "seg", Value: "no"}}
	h.create(c)
	h.waitPhase("typed", v1alpha1.CampaignComplete, 4*time.Minute)

	want, err := fromapi.Spec(&h.get("typed").Spec)
	if err != nil {
		t.Fatal(err)
	}
	if got := h.ledgerOf("typed").Plan().Search; !reflect.DeepEqual(got, want) {
		t.Errorf("the plan's search %+v, the campaign's %+v", got, want)
	}
	h.checkAgainstBlastp("typed", dir, db, queries, "-evalue", "1e-3", "-matrix", "BLOSUM80", "-word_size", "2", "-seg", "no")
}
