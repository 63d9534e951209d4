package dashboards

import (
	"context"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/test/support/dashcheck"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// checkWindow bounds how long, once the campaign runs, the test waits for
// every panel and alert signal to return series.
const checkWindow = 100 * time.Second

// TestDashboardsShowRealData (in make test, and alone in make
// verify-dashboards): the local stack,
// a real campaign, its Prometheus scraping the operator and every engine
// rank; then every panel target of every dashboard and every alert
// signal is evaluated through Prometheus's HTTP API, and must be valid
// and return series. Variables take the values their own label_values()
// queries find, pinned to this campaign.
func TestDashboardsShowRealData(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the local stack test runs in make verify-dashboards")
	}
	testenv.RequireTools(t, "prometheus", "mpirun", "blastn", "makeblastdb")
	t0 := time.Now()
	s := upStack(t, slowBlastPath(t))
	tUp := time.Since(t0)
	s.uploadData(t)
	s.database(t)
	tDB := time.Since(t0)
	s.startCampaign(t)
	tRun := time.Since(t0)

	ctx := context.Background()
	prom := &dashcheck.Client{URL: s.state.Prometheus}
	dashboards, alerts := loadDashboards(t), loadAlerts(t)
	o := dashcheck.Options{Client: prom, Vars: dashcheck.Vars{"job": operatorJob, "namespace": namespace, "campaign": campaign}}
	var rep dashcheck.Report
	var seen scrapeState // what Prometheus scraped at the last check while the campaign ran
	finished := false
	deadline := time.Now().Add(checkWindow)
	for attempt := 1; ; attempt++ {
		var err error
		if rep, err = checkAll(ctx, dashboards, alerts, o); err != nil {
			t.Fatal(err)
		}
		phase := s.campaign(t).Status.Phase
		finished = phase == v1alpha1.CampaignComplete || phase == v1alpha1.CampaignFailed
		if !finished {
			seen = scraped(ctx, prom)
		}
		t.Logf("check %d at %s: %d queries, %d invalid, %d empty, %d bad variables; campaign %s; %s",
			attempt, time.Since(t0).Round(time.Second), rep.Queries, rep.Count(dashcheck.Invalid), rep.Count(dashcheck.Empty), rep.Count(dashcheck.BadVariable), phase, seen)
		// Invalid queries stay invalid; empty ones may fill as the
		// campaign goes on, until its ranks exit. Ranks that serve
		// nothing 30 s after the campaign started running never will.
		engineDead := seen.engineTargets > 0 && seen.engineUp == 0 && time.Since(t0)-tRun > 30*time.Second
		if rep.OK() || rep.Count(dashcheck.Invalid) > 0 || finished || engineDead || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Second)
	}
	t.Logf("stack up %s, database ready %s, campaign running %s, checked %s (since start)",
		tUp.Round(time.Second), tDB.Round(time.Second), tRun.Round(time.Second), time.Since(t0).Round(time.Second))
	if !rep.OK() {
		t.Fatalf("%s\n%s", diagnose(rep, seen, testenv.BuiltBinaries(t).Engine, finished), rep.String())
	}
	t.Logf("every panel and alert signal returned series: %s", rep.String())
}

// checkAll checks every dashboard and alert.
func checkAll(ctx context.Context, ds []*dashcheck.Dashboard, rules []dashcheck.Rule, o dashcheck.Options) (dashcheck.Report, error) {
	rep, err := dashcheck.CheckDashboards(ctx, ds, o)
	if err != nil {
		return rep, err
	}
	r, err := dashcheck.CheckRules(ctx, rules, o)
	rep.Add(r)
	return rep, err
}
