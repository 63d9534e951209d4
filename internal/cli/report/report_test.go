package report_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/cli/report"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/ledger/ledgertest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/internal/storage/runrecord"
)

var sections = []string{`id="summary"`, `id="timeline-section"`, `id="tasks"`, `id="slowest"`, `id="failures"`, `id="runs"`}

// externalRef finds a src or href (or CSS url/@import) that leaves the
// file: the page must show with no network.
var externalRef = regexp.MustCompile(`(?i)(\b(src|href)\s*=\s*["']?\s*(https?:)?//)|url\(\s*["']?\s*(https?:)?//|@import`)

func render(t *testing.T, st objstore.Store, meta report.Meta) (*report.Report, string) {
	t.Helper()
	r, err := report.Load(context.Background(), st, meta)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := r.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("BLASTFLEET_KEEP_REPORT") != "" {
		_ = os.WriteFile(filepath.Join(os.Getenv("BLASTFLEET_KEEP_REPORT"), t.Name()+".html"), b.Bytes(), 0o644)
	}
	return r, b.String()
}

func TestReport(t *testing.T) {
	loc, st := campaignDir(t, 6, ledger.Policy{MaxAttempts: 2})
	reason := ledger.FailureReason{Message: "blastp failed", ExitCode: 3,
		StderrTail: "line one\n<script>alert('x')</script> BLAST query/options error"}
	ledgertest.Drive(t, st, "p0-aaaa1111", func(r ledger.Range) *ledger.FailureReason {
		if r.First != 0 {
			return nil
		}
		return &reason
	})
	intervals := writeRuns(t, st)
	generated := t0.Add(time.Hour)
	r, page := render(t, st, report.Meta{Namespace: "lab", Name: "human-vs-sprot", Phase: "Complete", Location: loc, Generated: generated})

	for _, s := range sections {
		if !strings.Contains(page, s) {
			t.Errorf("no section %s", s)
		}
	}
	// Everything the campaign's data brings is escaped: the page's own
	// script is its only one.
	if n := strings.Count(page, "<script>"); n != 1 {
		t.Errorf("%d <script> tags, want only the page's own", n)
	}
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;b&gt;blastp&lt;/b&gt; killed", "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks escaped %q", want)
		}
	}
	// The cost: 2 slots for 95 s and 2 for 40 s; the silent run's record
	// has no slots.
	if !strings.Contains(page, "270 core-seconds") {
		t.Errorf("page lacks the runs' cost, 270 core-seconds")
	}
	if sum := r.Summary(); sum.Runs.CoreSeconds != 270 || sum.Runs.SiteCoreSeconds[""] != 270 {
		t.Errorf("the JSON summary's cost: %v, by site %v; want 270", sum.Runs.CoreSeconds, sum.Runs.SiteCoreSeconds)
	}
	if m := externalRef.FindString(page); m != "" {
		t.Errorf("page refers outside itself: %q", m)
	}
	// The timeline: one rect per interval, each with its phase.
	if !strings.Contains(page, `<svg id="timeline"`) {
		t.Fatal("no timeline svg")
	}
	ivs := regexp.MustCompile(`<rect class="iv ph-([a-z]+)" data-phase="([a-z]+)"`).FindAllStringSubmatch(page, -1)
	if len(ivs) != intervals {
		t.Errorf("%d interval rects, want %d", len(ivs), intervals)
	}
	for _, m := range ivs {
		if m[1] != m[2] {
			t.Errorf("rect coloured %s for phase %s", m[1], m[2])
		}
	}
	for _, p := range runrecord.Phases {
		if !strings.Contains(page, `data-legend-phase="`+p+`"`) {
			t.Errorf("legend lacks %s", p)
		}
	}
	for _, want := range []string{
		// summary
		"namespace <b>lab</b>", "phase <b>Complete</b>", "blastp against database <b>sprot</b>",
		"5 done, 1 failed of 6 queries", "3 (1 complete, 1 failed, 1 running), 6 ranks in all",
		"1 min 40 s, from the first run", // first start to latest update
		"4.0 KiB",
		// timeline rows and ticks
		"0/p0-aaaa1111 rank 1 (worker)", "1/p1-cccc3333 rank 0 (master)", ">20 s</text>", "distribution from 1 min 24 s to 1 min 40 s (16.0 s)",
		// task times: 7 tasks, mean, max
		`<svg id="task-histogram"`, "<b>7</b> tasks", "max <b>40.0 s</b>",
		// slowest tasks
		"0 (0-2, 5)", "<code>q7 … q9</code>", "[4,6)",
		// failures
		"#0</td><td>blastp failed (exit code 3)</td>", "<pre>line one\n&lt;script&gt;",
		"<code>[0,2)</code></td><td class=\"num\">2</td><td><code>p0-aaaa1111</code>",
		"<code>[0,1)</code></td><td class=\"num\">1</td>",
		"<code>1/p1-bbbb2222</code> failed at 2025-03-04 10:01:10 UTC, after 40.0 s",
		"<code>1/p1-cccc3333</code> still says running, but no report since 2025-03-04 10:01:40 UTC",
		// runs
		`<span class="state state-failed">failed</span>`,
		// shard reads of a replicated database
		"<dt>Shard reads</dt><dd>0/p0-aaaa1111 rank 1: s3://primary/db 3.0 MiB in 3 pieces, skipped 1 times (10:00:05 skipped: throughput 0.3 MiB/s, best 40 MiB/s); s3://mirror/db 9.0 MiB in 9 pieces, 1 hedged pieces won</dd>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// 1 failed query, 4 failed attempts ([0,2) twice, then [0,1) twice),
	// 1 failed run and 1 silent one.
	if c := r.Counts(); c != (report.Counts{Runs: 3, Ranks: 6, Failures: 7}) {
		t.Errorf("counts %+v", c)
	}
}

// TestReportNoRuns: planned, nothing run yet. Every section says so,
// and there is no timeline to draw.
func TestReportNoRuns(t *testing.T) {
	loc, st := campaignDir(t, 4, ledger.Policy{})
	r, page := render(t, st, report.Meta{Location: loc})
	for _, s := range sections {
		if !strings.Contains(page, s) {
			t.Errorf("no section %s", s)
		}
	}
	for _, want := range []string{
		"Campaign <span class=\"name\">human-vs-sprot</span>", // the plan's name
		"0 done, 0 failed of 4 queries", "none reported yet",
		"No timeline yet: no partition run has reported",
		"None: no run has reported a task yet",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, `id="timeline"`) || strings.Contains(page, "<rect class=\"iv") {
		t.Error("a timeline svg without runs")
	}
	if n := strings.Count(page, `<p class="empty">None</p>`); n != 4 {
		t.Errorf("%d sections say None, want 4 (slowest, failed queries, attempts, runs)", n)
	}
	if c := r.Counts(); c != (report.Counts{}) {
		t.Errorf("counts %+v", c)
	}
}

func TestLoadErrors(t *testing.T) {
	empty, err := objstore.NewDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	_, err = report.Load(context.Background(), empty, report.Meta{Location: "s3://b/campaigns/x"})
	if !errors.Is(err, report.ErrNotPlanned) || err.Error() != "campaign has no plan at s3://b/campaigns/x: not planned yet" {
		t.Errorf("no plan: %v", err)
	}
	loc, st := campaignDir(t, 2, ledger.Policy{})
	if err := os.MkdirAll(filepath.Join(loc, "runs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(loc, "runs", "bad.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = report.Load(context.Background(), st, report.Meta{Location: loc})
	if err == nil || !strings.Contains(err.Error(), "reading the campaign's run records at "+loc) || !strings.Contains(err.Error(), "runs/bad.json") {
		t.Errorf("bad run record: %v", err)
	}
}

// TestReportBounded: a week-long run's timeline is drawn at the page's
// grain, not interval by interval.
func TestReportBounded(t *testing.T) {
	loc, st := campaignDir(t, 2, ledger.Policy{})
	var ivs []runrecord.Interval
	phases := []string{"compute", "write", "distribution"}
	for i := 0; i < 60000; i++ {
		ivs = append(ivs, iv(phases[i%3], float64(i)*10, float64(i)*10+9))
	}
	run := runrecord.RunRecord{Holder: "long", State: runrecord.RunComplete, Started: t0, Updated: t0.Add(600000 * time.Second),
		Summary: &runrecord.Summary{Started: t0, WallSeconds: 600000, Ranks: []runrecord.RankSummary{rank(0, "master", t0, ivs...)}}}
	if err := runrecord.WriteRun(context.Background(), st, &run); err != nil {
		t.Fatal(err)
	}
	_, page := render(t, st, report.Meta{Location: loc})
	// At most two boxes per pixel of the plot's 880.
	n := strings.Count(page, `<rect class="iv `)
	if n == 0 || n > 1760 {
		t.Errorf("%d interval rects for 60000 intervals, want at most 1760", n)
	}
	if !strings.Contains(page, "Drawn coarser: 1 of 1 rows had more intervals than the page draws") {
		t.Error("coarsening not said")
	}
	if len(page) > 1<<20 {
		t.Errorf("page of %d bytes", len(page))
	}
}

// TestReportEscapesTitles: names a partition chose reach SVG tooltips
// and labels escaped too.
func TestReportEscapesTitles(t *testing.T) {
	loc, st := campaignDir(t, 2, ledger.Policy{})
	run := runrecord.RunRecord{Holder: `x</title><script>alert(1)</script>`, Partition: `"><img src=x>`, State: runrecord.RunRunning, Started: t0, Updated: t0,
		Summary: &runrecord.Summary{Started: t0, WallSeconds: 2, Ranks: []runrecord.RankSummary{rank(0, "master", t0, iv("setup", 0, 2))}}}
	if err := runrecord.WriteRun(context.Background(), st, &run); err != nil {
		t.Fatal(err)
	}
	_, page := render(t, st, report.Meta{Location: loc, Generated: t0})
	if strings.Count(page, "<script>") != 1 || strings.Contains(page, "<img") {
		t.Error("a partition's name reached the page unescaped")
	}
	if !strings.Contains(page, "&lt;/title&gt;&lt;script&gt;") {
		t.Error("the holder is not in the page, escaped")
	}
}
