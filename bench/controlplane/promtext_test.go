package main

import (
	"strings"
	"testing"
)

func TestParseSamples(t *testing.T) {
	in := `# HELP x y
# TYPE apiserver_request_total counter
apiserver_request_total{code="201",resource="mpijobs",verb="POST",path="a \"b\", c"} 800
go_memstats_heap_alloc_bytes 1.2e+07
controller_runtime_reconcile_time_seconds_bucket{controller="searchcampaign",le="+Inf"} 12 1700000000
`
	got, err := parseSamples(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d samples, want 3: %+v", len(got), got)
	}
	if s := got[0]; s.name != "apiserver_request_total" || s.value != 800 || s.labels["verb"] != "POST" || s.labels["path"] != `a "b", c` {
		t.Errorf("first sample %+v", s)
	}
	if s := got[1]; s.name != "go_memstats_heap_alloc_bytes" || s.value != 1.2e7 || len(s.labels) != 0 {
		t.Errorf("second sample %+v", s)
	}
	if s := got[2]; s.labels["le"] != "+Inf" || s.value != 12 {
		t.Errorf("third sample %+v", s)
	}
	if _, err := parseSamples(strings.NewReader(`x{a="1" 2`)); err == nil {
		t.Error("an unterminated label set parsed")
	}
}

func TestScraperAcrossRestartsAndQuantile(t *testing.T) {
	s := newScraper("", "", nil, func(sample) bool { return true })
	feed := func(text string) {
		samples, err := parseSamples(strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		s.fold(samples)
	}
	feed("c 10\nh_bucket{le=\"0.1\"} 5\nh_bucket{le=\"1\"} 10\nh_bucket{le=\"+Inf\"} 10\n")
	feed("c 15\nh_bucket{le=\"0.1\"} 5\nh_bucket{le=\"1\"} 10\nh_bucket{le=\"+Inf\"} 10\n")
	// The process restarted: its counters start again from zero.
	feed("c 4\nh_bucket{le=\"0.1\"} 5\nh_bucket{le=\"1\"} 10\nh_bucket{le=\"+Inf\"} 10\n")
	if got := s.sum("c", "", nil)[""]; got != 19 {
		t.Errorf("counter total %v, want 19", got)
	}
	// 10 of 20 observations at or under 0.1, 20 under 1: p50 is 0.1 and
	// p75 halfway between 0.1 and 1.
	if got := s.quantile(0.5, "h", nil); got != 0.1 {
		t.Errorf("p50 %v, want 0.1", got)
	}
	if got := s.quantile(0.75, "h", nil); got < 0.549 || got > 0.551 {
		t.Errorf("p75 %v, want 0.55", got)
	}
}

// sinceMark counts only what came after the mark: the quantile of the
// reconciles after the restarts leaves out the slow ones before.
func TestScraperSinceMark(t *testing.T) {
	s := newScraper("", "", nil, func(sample) bool { return true })
	feed := func(text string) {
		samples, err := parseSamples(strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		s.fold(samples)
	}
	feed("h_bucket{le=\"0.1\"} 0\nh_bucket{le=\"1\"} 10\nh_bucket{le=\"+Inf\"} 10\n")
	s.mark()
	feed("h_bucket{le=\"0.1\"} 10\nh_bucket{le=\"1\"} 20\nh_bucket{le=\"+Inf\"} 20\n")
	if got := s.quantile(0.5, "h", nil); got != 0.1 {
		t.Errorf("p50 over the whole run %v, want 0.1", got)
	}
	after := s.sinceMark()
	if got := after.sum("h_bucket", "le", nil)["+Inf"]; got != 10 {
		t.Errorf("%v observations after the mark, want 10", got)
	}
	if got := after.quantile(0.99, "h", nil); got > 0.1 {
		t.Errorf("p99 after the mark %v, want at most 0.1", got)
	}
}
