package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
)

// report prints what the run measured, ending with the one-line summary.
func (b *bench) report(out io.Writer, mpijobs int, pl pipeline) {
	isCampaign := func(l map[string]string) bool { return l["controller"] == "searchcampaign" }
	p50 := b.opMetrics.quantile(0.50, "controller_runtime_reconcile_time_seconds", isCampaign) * 1000
	p99 := b.opMetrics.quantile(0.99, "controller_runtime_reconcile_time_seconds", isCampaign) * 1000
	reconciles := b.opMetrics.sum("controller_runtime_reconcile_time_seconds_count", "", isCampaign)[""]
	heapNow, heapPeak := b.opMetrics.gauge("go_memstats_heap_alloc_bytes")
	cpu := b.opMetrics.sum("process_cpu_seconds_total", "", nil)[""]
	secs := b.allDone.Seconds()
	fmt.Fprintf(out, "kwok nodes %d, operator flags %q, stand-in hold %s\n", b.cfg.nodes, b.cfg.operatorArgs, b.cfg.hold)
	fmt.Fprintf(out, "restarts: %s\n", orNone(strings.Join(b.restarts, "; ")))
	_, ran := b.standIn.lastRunning()
	fmt.Fprintf(out, "apply to the last partition Running: %.1f s (%d of %d partitions ran; the others' campaigns finished first); to all campaigns Complete: %.1f s\n",
		b.lastRunning.Seconds(), ran, b.cfg.campaigns*b.cfg.partitions, secs)
	fmt.Fprintf(out, "apply to the last MPIJob created: %.1f s; MPIJob created to its launcher Running: p50 %.1f s, p99 %.1f s (%d partitions)\n",
		pl.lastCreated.Seconds(), pl.startP50.Seconds(), pl.startP99.Seconds(), pl.started)
	fmt.Fprintf(out, "reconciles of searchcampaign %d: p50 %.1f ms, p99 %.1f ms\n", int(reconciles), p50, p99)
	reportSteps(out, b.opMetrics)
	if b.settled > 0 {
		// Without the restarts' reconnects and the outage's backlog.
		m := b.opMetrics.sinceMark()
		fmt.Fprintf(out, "reconciles of searchcampaign from %.0f s (%s after the last restart) to the end %d: p50 %.1f ms, p99 %.1f ms\n",
			b.settled.Seconds(), settleAfter, int(m.sum("controller_runtime_reconcile_time_seconds_count", "", isCampaign)[""]),
			m.quantile(0.50, "controller_runtime_reconcile_time_seconds", isCampaign)*1000, m.quantile(0.99, "controller_runtime_reconcile_time_seconds", isCampaign)*1000)
		reportSteps(out, m)
	}
	reportReads(out, b.opMetrics)
	fmt.Fprintf(out, "operator heap peak %.0f MiB (at the end %.0f MiB), CPU %.1f s (%.2f cores over the run)\n",
		heapPeak/(1<<20), heapNow/(1<<20), cpu, cpu/math.Max(secs, 1))
	byVerb := b.apiMetrics.sum("apiserver_request_total", "verb", nil)
	var verbs []string
	for v := range byVerb {
		verbs = append(verbs, v)
	}
	sort.Slice(verbs, func(i, j int) bool { return byVerb[verbs[i]] > byVerb[verbs[j]] })
	var parts []string
	for _, v := range verbs {
		parts = append(parts, fmt.Sprintf("%s %.1f", v, byVerb[v]/math.Max(secs, 1)))
	}
	fmt.Fprintf(out, "API requests per second by verb (every client, over the run): %s\n", strings.Join(parts, ", "))
	fmt.Fprintf(out, "MPIJobs: each partition's once (creates the API server answered: %d; %d left at the end, the others deleted a minute after their campaign completed)\n",
		int(b.created("mpijobs")), mpijobs)
	for _, p := range append(b.others, b.op, b.cp.apiserver, b.cp.etcd, b.minio.proc) {
		if n := p.crashCount(); n > 0 {
			fmt.Fprintf(out, "%s exited on its own %d times and was restarted (see %s)\n", p.name, n, p.log)
		}
	}
	fmt.Fprintf(out, "load average at the end: %s\n", loadAverage())
	fmt.Fprintf(out, "campaigns %d partitions %d reconcile p99 %.0f ms operator heap %.0f MiB\n",
		b.cfg.campaigns, b.cfg.campaigns*b.cfg.partitions, p99, heapPeak/(1<<20))
}

// stepSeconds is the operator's histogram of a campaign reconcile's steps.
const stepSeconds = "blastfleet_operator_campaign_step_seconds"

// reportSteps breaks the reconcile latency down by step, slowest total
// first: where the tail waits (the API server, the store, the operator).
func reportSteps(out io.Writer, m *scraper) {
	counts := m.sum(stepSeconds+"_count", "step", nil)
	sums := m.sum(stepSeconds+"_sum", "step", nil)
	var steps []string
	for s := range counts {
		steps = append(steps, s)
	}
	sort.Slice(steps, func(i, j int) bool { return sums[steps[i]] > sums[steps[j]] })
	for _, step := range steps {
		is := func(l map[string]string) bool { return l["step"] == step }
		fmt.Fprintf(out, "  step %-12s %6d runs, p50 %7.1f ms, p99 %7.1f ms, %6.1f s in all\n", step, int(counts[step]),
			m.quantile(0.50, stepSeconds, is)*1000, m.quantile(0.99, stepSeconds, is)*1000, sums[step])
	}
}

// The operator's counters of a campaign reconcile's own store reads, by
// cause, and of its ledger poller's reads, by outcome.
const (
	storeReads  = "blastfleet_operator_campaign_store_reads_total"
	pollerReads = "blastfleet_operator_ledger_poller_reads_total"
)

// reportReads prints who read the campaigns' stores: the poller, by
// outcome, and the reconciles themselves, one line per cause, most first.
func reportReads(out io.Writer, m *scraper) {
	for _, c := range []struct{ name, label, what string }{
		{pollerReads, "outcome", "ledger poller reads"},
		{storeReads, "cause", "reconciles' own store reads"},
	} {
		counts := m.sum(c.name, c.label, nil)
		var keys []string
		for k := range counts {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			if counts[keys[i]] != counts[keys[j]] {
				return counts[keys[i]] > counts[keys[j]]
			}
			return keys[i] < keys[j]
		})
		for _, k := range keys {
			fmt.Fprintf(out, "  %-28s %-30s %8.0f\n", c.what+",", c.label+" "+k, counts[k])
		}
	}
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// loadAverage is the machine's 1, 5 and 15 minute load averages: the
// bench shares its cores.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
