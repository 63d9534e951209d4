package report

import (
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/storage/runrecord"
)

func TestTimeTicks(t *testing.T) {
	for _, tc := range []struct {
		span float64
		want string
	}{
		{0.8, "0 0.1 s 0.2 s 0.3 s 0.4 s 0.5 s 0.6 s 0.7 s 0.8 s"},
		{45, "0 5 s 10 s 15 s 20 s 25 s 30 s 35 s 40 s 45 s"},
		{290, "0 30 s 60 s 90 s 120 s 150 s 180 s 210 s 240 s 270 s"},
		{3000, "0 5 min 10 min 15 min 20 min 25 min 30 min 35 min 40 min 45 min 50 min"},
		{3 * 3600, "0 0.5 h 1 h 1.5 h 2 h 2.5 h 3 h"},
		{3 * 86400, "0 12 h 24 h 36 h 48 h 60 h 72 h"},
		{30 * 86400, "0 7 d 14 d 21 d 28 d"},
	} {
		var labels []string
		for _, tk := range timeTicks(tc.span, 0, 100, 10) {
			labels = append(labels, tk.Label)
		}
		if got := strings.Join(labels, " "); got != tc.want {
			t.Errorf("ticks over %gs: %q, want %q", tc.span, got, tc.want)
		}
	}
}

func TestSeconds(t *testing.T) {
	for v, want := range map[float64]string{0: "0 s", 0.25: "250 ms", 2.5: "2.50 s", 42: "42.0 s", 125: "2 min 05 s", 7322: "2 h 02 min"} {
		if got := seconds(v); got != want {
			t.Errorf("seconds(%g) = %q, want %q", v, got, want)
		}
	}
}

// TestEnclosingSpanBeneath: a span drawn around others (the master
// writing inside a merge) comes first, so it lies beneath them.
func TestEnclosingSpanBeneath(t *testing.T) {
	run := runrecord.RunRecord{Holder: "h", Summary: &runrecord.Summary{Ranks: []runrecord.RankSummary{{Rank: 0, Role: "master",
		Timeline: []runrecord.Interval{{Phase: "write", Start: 2, End: 3}, {Phase: "merge", Start: 1, End: 5}}}}}}
	v := buildTimeline([]runrecord.RunRecord{run})
	if r := v.Rows[0].Rects; len(r) != 2 || r[0].Phase != "merge" || r[1].Phase != "write" {
		t.Errorf("rects %+v: want the merge span first", r)
	}
}

func TestCoarsen(t *testing.T) {
	ivs := []runrecord.Interval{{Phase: "compute", Start: 0, End: 9}, {Phase: "write", Start: 9, End: 10}, {Phase: "compute", Start: 10, End: 30}}
	got := coarsen(ivs, 10)
	if len(got) != 1 || got[0] != (runrecord.Interval{Phase: "compute", Start: 0, End: 30}) {
		t.Errorf("coarsen: %+v", got)
	}
}

func TestRunName(t *testing.T) {
	for _, c := range []struct {
		r    runrecord.RunRecord
		want string
	}{
		{runrecord.RunRecord{Holder: "demo-p1-r0-7473500e", Partition: "demo-p1-r0", Campaign: "demo"}, "p1-r0-7473500e"},
		{runrecord.RunRecord{Holder: "node7-ab12", Partition: "site-a"}, "site-a/node7-ab12"},
		{runrecord.RunRecord{Holder: "node7-ab12"}, "node7-ab12"},
		{runrecord.RunRecord{Holder: "demo-", Campaign: "demo"}, "demo-"},
	} {
		if got := runName(&c.r); got != c.want {
			t.Errorf("runName(%+v) = %q, want %q", c.r, got, c.want)
		}
	}
}
