package main

import (
	"strings"
	"testing"
)

// TestReportReads: one line per cause and outcome, summed over the
// operator's restarts, most first.
func TestReportReads(t *testing.T) {
	s := newScraper("", "", nil, keepOperatorSample)
	for _, text := range []string{
		storeReads + `{cause="no_poller_read"} 7` + "\n" + storeReads + `{cause="poller_read_failed"} 2` + "\n" + pollerReads + `{outcome="ok"} 40` + "\n",
		// The operator restarted: its counters start again from zero.
		storeReads + `{cause="no_poller_read"} 3` + "\n" + storeReads + `{cause="poller_read_failed"} 0` + "\n" + pollerReads + `{outcome="ok"} 5` + "\n",
	} {
		samples, err := parseSamples(strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		s.fold(samples)
	}
	var out strings.Builder
	reportReads(&out, s)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := [][]string{{"ledger poller reads", "outcome ok", " 45"}, {"own store reads", "cause no_poller_read", " 10"}, {"own store reads", "cause poller_read_failed", " 2"}}
	if len(lines) != len(want) {
		t.Fatalf("report:\n%s\nwant %d lines", out.String(), len(want))
	}
	for i, w := range want {
		for _, part := range w {
			if !strings.Contains(lines[i], part) {
				t.Errorf("line %d %q: want %q in it", i+1, lines[i], part)
			}
		}
	}
}
