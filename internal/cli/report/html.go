package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"

	"github.com/blastfleet/blastfleet/internal/storage/runrecord"
)

var (
	//go:embed report.html.tmpl
	pageSource string
	//go:embed report.css
	pageCSS string
	//go:embed report.js
	pageJS string
)

var pageTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"inc":        func(n int) int { return n + 1 },
	"n":          num,
	"seconds":    seconds,
	"coreTime":   coreTime,
	"stamp":      stamp,
	"ratio":      ratio,
	"ibytes":     ibytes,
	"phaseClass": phaseClass,
	"lastLine": func(s string) string {
		lines := strings.Split(strings.TrimSpace(s), "\n")
		return strings.TrimSpace(lines[len(lines)-1])
	},
}).Parse(pageSource))

// page is what the template draws.
type page struct {
	*Report
	CSS      template.CSS
	JS       template.JS
	Phases   []string
	Totals   totals
	Progress progress
	Timeline *timelineView
	Hist     *histView
	Slowest  []slowTask
	Failures *failuresView
	RunRows  []runRow
	// Decompositions are the runs' distinct choices of blocks and shard
	// groups, with their reasons; SearchedAlone the query ranges some run
	// searched each query alone (a chunk split through a batch).
	Decompositions []string
	SearchedAlone  []runrecord.QueryRange
	// StoreReads: per worker of a replicated database, the stores it read
	// from and the times it skipped one.
	StoreReads []string
}

func (r *Report) page() *page {
	slowest := mergeSlowest(r.Runs)
	return &page{
		Report:   r,
		CSS:      template.CSS(pageCSS),
		JS:       template.JS(pageJS),
		Phases:   runrecord.Phases,
		Totals:   sumRuns(r.Runs, r.Meta.Generated),
		Progress: newProgress(r.Status.QueriesDone, r.Status.QueriesFailed, r.Status.Queries),
		Timeline: buildTimeline(r.Runs),
		Hist:     buildHistogram(r.Runs, slowest),
		Slowest:  slowest,
		Failures: buildFailures(r),
		RunRows:  buildRuns(r.Runs),

		Decompositions: decompositions(r.Runs),
		SearchedAlone:  searchedAlone(r.Runs),
		StoreReads:     storeReads(r.Runs),
	}
}

func decompositions(runs []runrecord.RunRecord) []string {
	var out []string
	for _, r := range runs {
		if s := r.Summary; s != nil && s.Decomposition != "" && !slices.Contains(out, s.Decomposition) {
			out = append(out, s.Decomposition)
		}
	}
	return out
}

func searchedAlone(runs []runrecord.RunRecord) []runrecord.QueryRange {
	var out []runrecord.QueryRange
	for _, r := range runs {
		if s := r.Summary; s != nil {
			for _, q := range s.SearchedAlone {
				if !slices.Contains(out, q) {
					out = append(out, q)
				}
			}
		}
	}
	return out
}

// WriteHTML writes the report as one self-contained HTML page.
func (r *Report) WriteHTML(w io.Writer) error {
	if err := pageTemplate.Execute(w, r.page()); err != nil {
		return fmt.Errorf("rendering the report of campaign %s: %w", r.Meta.Name, err)
	}
	return nil
}

// Counts are the report's size in words a command can print.
type Counts struct {
	Runs, Ranks, Failures int
}

// Counts counts runs, ranks and the failures the page lists.
func (r *Report) Counts() Counts {
	t := sumRuns(r.Runs, r.Meta.Generated)
	return Counts{Runs: t.Runs, Ranks: t.Ranks, Failures: buildFailures(r).Count()}
}

// progress is the summary's bar: queries done and failed of the total.
type progress struct {
	Done, Failed, Total int
	DoneW, FailedW      float64
}

const progressW = 420.0

func newProgress(done, failed, total int) progress {
	p := progress{Done: done, Failed: failed, Total: total}
	if total > 0 {
		p.DoneW = float64(done) / float64(total) * progressW
		p.FailedW = float64(failed) / float64(total) * progressW
	}
	return p
}

// Width is the bar's full width, for the template.
func (p progress) Width() float64 { return progressW }

// Percent is the share of queries finished (done or failed).
func (p progress) Percent() string { return ratio(float64(p.Done+p.Failed), float64(p.Total)) }
