package controllers

import (
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/plan/search"
	"github.com/blastfleet/blastfleet/internal/plan/search/fromapi"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
)

// A plan found at the campaign's location that names a local path is not
// the campaign's, whatever else it says: partitions would read their pod's
// filesystem.
func TestPlanMismatchLocalPath(t *testing.T) {
	c := &v1alpha1.SearchCampaign{}
	c.Spec.Output.Bucket = "work"
	c.Spec.Queries.Key = "q.fa"
	db := &v1alpha1.BlastDatabase{}
	db.Status.Location = "s3://dbs/nt"
	p := &ledger.Plan{Queries: ledger.Queries{Location: queriesURL(c)}, Database: ledger.Database{Location: db.Status.Location}}
	if msg := planMismatch(p, c, db); msg != "" {
		t.Fatalf("the campaign's own plan: %s", msg)
	}
	p.Database.Location = "/etc"
	if msg := planMismatch(p, c, db); !strings.Contains(msg, "database.location") || !strings.Contains(msg, "local path") {
		t.Errorf("local database: %q", msg)
	}
}

// A plan found at a campaign's location is adopted only if it was made
// for the same search: a campaign recreated with another evalue, outfmt
// or option is refused, naming the field, rather than reported Complete
// with the old result (issue 30, finding 7).
func TestPlanMismatchComparesWholeSearch(t *testing.T) {
	db := &v1alpha1.BlastDatabase{Status: v1alpha1.BlastDatabaseStatus{Location: "s3://b/databases/ns/nt"}}
	old := searchCampaign(v1alpha1.BlastOption{Name: "word_size", Value: "11"})
	spec, err := campaignSearch(old)
	if err != nil {
		t.Fatal(err)
	}
	plan := &ledger.Plan{Queries: ledger.Queries{Location: queriesURL(old)}, Database: ledger.Database{Location: db.Status.Location}, Search: spec}
	if msg := planMismatch(plan, old, db); msg != "" {
		t.Fatalf("the campaign's own plan mismatches: %s", msg)
	}
	for _, tc := range []struct {
		name, field string
		change      func(c *v1alpha1.SearchCampaign)
	}{
		{"evalue", "search.evalue", func(c *v1alpha1.SearchCampaign) { c.Spec.Evalue = "1e-30" }},
		{"outfmt", "search.outfmt", func(c *v1alpha1.SearchCampaign) { c.Spec.Outfmt = "6 qseqid sseqid" }},
		{"options", "search.options", func(c *v1alpha1.SearchCampaign) {
			c.Spec.BlastOptions = []v1alpha1.BlastOption{{Name: "word_size", Value: "28"}}
		}},
		{"max target seqs", "search.maxTargetSeqs", func(c *v1alpha1.SearchCampaign) { c.Spec.MaxTargetSeqs = 5 }},
		{"batching", "search.batching", func(c *v1alpha1.SearchCampaign) { c.Spec.Batching = "alone" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := old.DeepCopy()
			tc.change(c)
			if msg := planMismatch(plan, c, db); !strings.Contains(msg, tc.field) {
				t.Errorf("mismatch %q, want it to name %s", msg, tc.field)
			}
		})
	}
}

// A campaign's taxid list object goes to the planning Job by location,
// and the plan that read its ids into -taxids is still the campaign's;
// another list, or none, is not.
func TestPlanMismatchTaxidList(t *testing.T) {
	db := &v1alpha1.BlastDatabase{Status: v1alpha1.BlastDatabaseStatus{Location: "s3://b/databases/ns/nt"}}
	c := searchCampaign()
	c.Spec.TaxidList = &v1alpha1.TaxidList{ObjectReference: v1alpha1.ObjectReference{Key: "campaigns/ns/run/lists/taxa.txt"}}
	spec, err := campaignSearch(c)
	if err != nil {
		t.Fatal(err)
	}
	want := search.TaxidList{Location: fromapi.ObjectURL(c.Spec.Output, c.Spec.TaxidList.ObjectReference)}
	if got := planJobSearch(t, mustPlanJob(t, c, spec, db, "s3://b/campaigns/ns/run", "worker:test")).TaxidList; got == nil || *got != want {
		t.Errorf("planning Job's taxid list %+v, want %+v", got, want)
	}
	if err := spec.ReadTaxidList(strings.NewReader("9606\n10090\n")); err != nil {
		t.Fatal(err)
	}
	plan := &ledger.Plan{Queries: ledger.Queries{Location: queriesURL(c)}, Database: ledger.Database{Location: db.Status.Location}, Search: spec}
	if msg := planMismatch(plan, c, db); msg != "" {
		t.Fatalf("the campaign's own plan mismatches: %s", msg)
	}
	other := c.DeepCopy()
	other.Spec.TaxidList.Negative = true
	none := c.DeepCopy()
	none.Spec.TaxidList = nil
	for name, c := range map[string]*v1alpha1.SearchCampaign{"negative": other, "none": none} {
		if msg := planMismatch(plan, c, db); !strings.Contains(msg, "search.options") {
			t.Errorf("%s: mismatch %q, want it to name search.options", name, msg)
		}
	}
}
