package controllers

import (
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/ledger"
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
