package e2e

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/blastvol"
	"github.com/blastfleet/blastfleet/internal/ledger"
	"github.com/blastfleet/blastfleet/internal/manifest"
	"github.com/blastfleet/blastfleet/internal/refsearch"
	"github.com/blastfleet/blastfleet/internal/regen"
	"github.com/blastfleet/blastfleet/internal/testenv"
)

// testReport: a campaign asking for XML (outfmt 5), applied with
// kubectl, completes with BLAST+'s XML of the whole search, each query's
// part as blastn prints it alone on the unsharded database (named and
// dated as the BlastDatabase).
func testReport(t *testing.T, tg *target, f *fixture, db string) {
	testenv.RequireTools(t, "blastdbcmd", "blastdb_aliastool")
	name := tg.name("e2e-report")
	tg.cleanupCampaign(t, name)
	yaml := strings.Replace(tg.campaignYAML(name, db, queriesKey), "outfmt: \"6 std\"", "outfmt: \"5\"", 1)
	if yaml == tg.campaignYAML(name, db, queriesKey) {
		t.Fatal("the campaign's YAML has no outfmt line to replace")
	}
	tg.apply(t, yaml)
	c := tg.waitPhase(t, name, v1alpha1.CampaignComplete, campaignTimeout)
	st := tg.ledgerStore(t, c)
	ctx := context.Background()
	var got bytes.Buffer
	if err := ledger.StreamResults(ctx, st, &got); err != nil {
		t.Fatal(err)
	}
	// The reference: the unsharded database under the BlastDatabase's
	// name, with its build's date.
	var bdb v1alpha1.BlastDatabase
	if err := tg.c.Get(ctx, client.ObjectKey{Namespace: tg.ns, Name: db}, &bdb); err != nil {
		t.Fatal(err)
	}
	prefix, ok := strings.CutPrefix(bdb.Status.Location, "s3://"+tg.bucket+"/")
	if !ok {
		t.Fatalf("database location %q is not in bucket %s", bdb.Status.Location, tg.bucket)
	}
	dbst, err := tg.store(prefix)
	if err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Load(ctx, dbst)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	fa, qf := filepath.Join(dir, "db.fa"), filepath.Join(dir, "q.fa")
	for p, b := range map[string][]byte{fa: f.db, qf: f.queries} {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ref, err := refsearch.MakeNamedDB(ctx, fa, "nucl", dir, m.Name)
	if err != nil {
		t.Fatal(err)
	}
	if err := blastvol.SetDate(ref+".nin", regen.DatabaseDate(m.Shards)); err != nil {
		t.Fatal(err)
	}
	want, err := refsearch.ReportAlone(ctx, "blastn", ref, qf, 5, "5", "-max_target_seqs", "500")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("campaign %s's XML differs from BLAST+'s: %s", name, refsearch.Diff(got.Bytes(), want))
	}
	t.Logf("%s: %d bytes of XML, BLAST+'s, %s after apply", name, got.Len(), time.Since(c.CreationTimestamp.Time).Round(time.Second))
}
