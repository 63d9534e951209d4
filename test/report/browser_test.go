package report_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/blastfleet/blastfleet/internal/storage/runrecord"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// UpdateScreenshotEnv=1 makes the test write its screenshot to
// docs/images/report.png, the one the documentation shows.
const UpdateScreenshotEnv = "BLASTFLEET_UPDATE_SCREENSHOT"

// pageFacts is what the page says about itself once rendered.
type pageFacts struct {
	Rendered      string   `json:"rendered"`
	Said          string   `json:"said"`
	Intervals     int      `json:"intervals"`
	Phases        []string `json:"phases"`
	Legend        []string `json:"legend"`
	Dimmed        int      `json:"dimmed"`
	Undimmed      int      `json:"undimmed"`
	Resources     int      `json:"resources"`
	Runs          int      `json:"runs"`
	FailedQueries string   `json:"failedQueries"`
}

// factsJS reads pageFacts, hovering the legend's "compute" on the way.
const factsJS = `(() => {
	const ivs = [...document.querySelectorAll('#timeline rect.iv')];
	const compute = document.querySelector('[data-legend-phase="compute"]');
	compute.dispatchEvent(new MouseEvent('mouseenter'));
	const dimmed = document.querySelectorAll('#timeline rect.iv.dim').length;
	compute.dispatchEvent(new MouseEvent('mouseleave'));
	const failed = document.querySelector('#failures table');
	return {
		rendered: document.body.dataset.rendered || '',
		said: document.body.dataset.intervals || '',
		intervals: ivs.length,
		phases: [...new Set(ivs.map(r => r.dataset.phase))],
		legend: [...document.querySelectorAll('[data-legend-phase]')].map(e => e.dataset.legendPhase),
		dimmed: dimmed,
		undimmed: document.querySelectorAll('#timeline rect.dim').length,
		resources: performance.getEntriesByType('resource').length,
		runs: document.querySelectorAll('#runs tbody tr').length,
		failedQueries: failed ? failed.innerText : '',
	};
})()`

// TestReportInBrowser: a real campaign's report, opened in headless
// Chromium, renders its timeline without a console error or warning and
// without fetching anything.
func TestReportInBrowser(t *testing.T) {
	testenv.RequireTools(t, "chromium", "blastn", "makeblastdb")
	chromium, _ := exec.LookPath("chromium")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	bins := testenv.BuiltBinaries(t)
	campaign := realCampaign(ctx, t, bins)

	// Each partition's master records its run beside the ledger.
	records, _ := filepath.Glob(filepath.Join(campaign, "runs", "*.json"))
	if len(records) != len(partitions) {
		t.Fatalf("%d run records under %s/runs, want one per partition (%d): the engine must write runs/<holder>.json (internal/engine/runrecord.go)",
			len(records), campaign, len(partitions))
	}
	html := filepath.Join(t.TempDir(), "report.html")
	run(ctx, t, nil, bins.CLI, "campaign", "report", "--campaign", campaign, "-o", html)
	if t.Failed() {
		t.FailNow()
	}

	var mu sync.Mutex
	var problems []string
	complain := func(format string, args ...any) {
		mu.Lock()
		problems = append(problems, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	// Listen from the tab's first event, so nothing said while loading
	// is missed; the listener must return at once (chromedp.Listen).
	listen := chromedp.WithListener(func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning {
				var args []string
				for _, a := range e.Args {
					args = append(args, a.Description+string(a.Value))
				}
				complain("console.%s: %s", e.Type, strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			complain("exception: %s %s:%d", e.ExceptionDetails.Text, e.ExceptionDetails.URL, e.ExceptionDetails.LineNumber)
		case *log.EventEntryAdded:
			if e.Entry.Level == log.EntryLevelError {
				complain("log error (%s): %s %s", e.Entry.Source, e.Entry.Text, e.Entry.URL)
			}
		}
	})
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium), chromedp.NoSandbox, chromedp.Headless, chromedp.WindowSize(1400, 1800))
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	defer acancel()
	bctx, bcancel := chromedp.NewContext(actx, listen)
	defer bcancel()

	if err := chromedp.Do(bctx, chromedp.Navigate("file://"+html)); err != nil {
		t.Fatalf("opening %s in Chromium: %v", html, err)
	}
	facts, err := chromedp.Run(bctx, chromedp.Evaluate[pageFacts](factsJS))
	if err != nil {
		t.Fatalf("reading the page: %v", err)
	}
	shot, err := chromedp.Run(bctx, chromedp.FullScreenshot(100)) // 100: PNG
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	saveScreenshot(t, shot)

	mu.Lock()
	for _, p := range problems {
		t.Errorf("the page said: %s", p)
	}
	mu.Unlock()
	if facts.Rendered != "ok" || facts.Intervals == 0 || facts.Said != fmt.Sprint(facts.Intervals) {
		t.Errorf("timeline: rendered %q, %d interval rects (the page counted %s)", facts.Rendered, facts.Intervals, facts.Said)
	}
	if !slices.Equal(facts.Legend, runrecord.Phases) {
		t.Errorf("legend %v, want every phase %v", facts.Legend, runrecord.Phases)
	}
	for _, p := range facts.Phases {
		if !slices.Contains(runrecord.Phases, p) {
			t.Errorf("an interval of unknown phase %q", p)
		}
	}
	if !slices.Contains(facts.Phases, "compute") {
		t.Errorf("no compute intervals drawn: %v", facts.Phases)
	}
	if facts.Dimmed == 0 || facts.Dimmed == facts.Intervals || facts.Undimmed != 0 {
		t.Errorf("hovering the legend dimmed %d of %d intervals, %d stayed dim after", facts.Dimmed, facts.Intervals, facts.Undimmed)
	}
	if facts.Resources != 0 {
		t.Errorf("the page fetched %d resources; it must be self-contained", facts.Resources)
	}
	if facts.Runs != len(partitions) {
		t.Errorf("%d rows in the runs table, want %d", facts.Runs, len(partitions))
	}
	if want := fmt.Sprintf("#%d", poisonIndex); !strings.Contains(facts.FailedQueries, want) || !strings.Contains(facts.FailedQueries, poison) {
		t.Errorf("failed queries %q: want %s with its BLAST stderr naming %s", facts.FailedQueries, want, poison)
	}
}

// saveScreenshot keeps the page's picture: in docs/images/report.png
// when asked to update it, else beside the test's other files.
func saveScreenshot(t *testing.T, png []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "report.png")
	if os.Getenv(UpdateScreenshotEnv) == "1" {
		root, err := testenv.RepoRoot()
		if err != nil {
			t.Fatal(err)
		}
		path = filepath.Join(root, "docs", "images", "report.png")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatalf("writing the screenshot: %v", err)
	}
	t.Logf("screenshot (%d KiB): %s", len(png)/1024, path)
}
