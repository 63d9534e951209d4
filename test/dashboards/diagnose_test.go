package dashboards

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/blastfleet/blastfleet/internal/devstack/localrunner"
	"github.com/blastfleet/blastfleet/test/support/dashcheck"
)

// scrapeState is what Prometheus scrapes of the stack: the operator, and
// the engine ranks of this test's campaign.
type scrapeState struct {
	err                     error
	operatorUp              bool
	engineTargets, engineUp int
	engineErr               string // a down rank's last scrape error
	// engineSeries are label sets of the engine series Prometheus has,
	// to show when their labels are not the contract's.
	engineSeries []map[string]string
}

func (s scrapeState) String() string {
	if s.err != nil {
		return "targets: " + s.err.Error()
	}
	return fmt.Sprintf("operator up: %v, engine ranks up: %d of %d", s.operatorUp, s.engineUp, s.engineTargets)
}

// scraped reads Prometheus's active targets.
func scraped(ctx context.Context, prom *dashcheck.Client) scrapeState {
	var s scrapeState
	targets, err := prom.Targets(ctx)
	if err != nil {
		s.err = err
		return s
	}
	if r, err := prom.Query(ctx, `group by (namespace, campaign, partition, rank, role) ({__name__=~"blastfleet_engine_.+"})`, time.Time{}); err == nil {
		s.engineSeries = r.Labels
	}
	for _, tg := range targets {
		switch tg.Labels["job"] {
		case operatorJob:
			s.operatorUp = s.operatorUp || tg.Health == "up"
		case "blastfleet-engine":
			if strings.HasPrefix(tg.Labels["mpijob"], campaign+"-") {
				s.engineTargets++
				if tg.Health == "up" {
					s.engineUp++
				} else if s.engineErr == "" {
					s.engineErr = tg.LastError
				}
			}
		}
	}
	return s
}

// diagnose says why queries came back empty, from what Prometheus
// scraped while the campaign ran: engine series missing because no rank
// serves /metrics (the engine's endpoint not merged yet, or broken),
// engine targets missing (the stack's file_sd), or metrics missing from
// a healthy exporter.
func diagnose(rep dashcheck.Report, seen scrapeState, engine string, finished bool) string {
	var engineQueries, otherQueries int
	missing := map[string]bool{}
	for _, f := range rep.Findings {
		if f.Problem == dashcheck.Invalid {
			continue
		}
		if slices.ContainsFunc(f.Metrics, func(m string) bool { return strings.HasPrefix(m, "blastfleet_engine_") }) {
			engineQueries++
		} else {
			otherQueries++
		}
		for _, m := range f.Metrics {
			missing[m] = true
		}
	}
	var b strings.Builder
	if n := rep.Count(dashcheck.Invalid); n > 0 {
		fmt.Fprintf(&b, "%d queries are invalid PromQL (Prometheus's error is with each below).\n", n)
	}
	if finished {
		fmt.Fprintf(&b, "The campaign finished before every query returned series: its ranks exited, so their series went stale; slow it down (blastDelay, nQueries).\n")
	}
	if seen.err != nil {
		fmt.Fprintf(&b, "Could not list Prometheus's targets: %v\n", seen.err)
	}
	if !seen.operatorUp {
		fmt.Fprintf(&b, "The operator's target (job %s) was not up in Prometheus.\n", operatorJob)
	}
	if engineQueries > 0 {
		switch {
		case seen.engineTargets == 0:
			fmt.Fprintf(&b, "%d queries over blastfleet_engine_* series are empty and the stack's Prometheus had no blastfleet-engine target for %s's MPIJobs: internal/devstack writes them (prometheus/engine-targets.json) from the local runner's MPIJobs and their metrics ports.\n", engineQueries, campaign)
		case seen.engineUp == 0:
			fmt.Fprintf(&b, "%d queries over blastfleet_engine_* series are empty because Prometheus scraped none of the %d engine ranks of %s (%s). The ranks serve no /metrics on $%s+rank: the engine's metrics endpoint (docs/observability.md, \"Engine\") is not merged yet, or does not start.%s\n",
				engineQueries, seen.engineTargets, campaign, seen.engineErr, localrunner.MetricsPortEnv, engineHint(engine))
		default:
			fmt.Fprintf(&b, "%d queries over blastfleet_engine_* series are empty although %d of %d engine ranks were scraped: the engine does not export every metric of the contract, or not with the contract's labels (the panels select namespace=%q, campaign=%q). Engine series by namespace, campaign, partition, rank and role: %v\n",
				engineQueries, seen.engineUp, seen.engineTargets, namespace, campaign, firstN(seen.engineSeries, 8))
		}
	}
	if otherQueries > 0 {
		fmt.Fprintf(&b, "%d queries on the operator's series are empty.\n", otherQueries)
	}
	var names []string
	for m := range missing {
		names = append(names, m)
	}
	slices.Sort(names)
	fmt.Fprintf(&b, "Metrics of the empty queries: %s\n", strings.Join(names, ", "))
	return b.String()
}

// engineHint tells whether the engine binary reads the metrics port
// variable at all.
func engineHint(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	if !bytes.Contains(b, []byte(localrunner.MetricsPortEnv)) {
		return fmt.Sprintf(" (%s does not even mention %s.)", path, localrunner.MetricsPortEnv)
	}
	return fmt.Sprintf(" (%s mentions %s, so look at the ranks' logs under the stack's runner/ directory.)", path, localrunner.MetricsPortEnv)
}

func firstN[T any](s []T, n int) []T {
	return s[:min(len(s), n)]
}
