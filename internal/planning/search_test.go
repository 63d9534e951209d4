package planning

import (
	"slices"
	"strings"
	"testing"
)

func TestSearchParse(t *testing.T) {
	ok := Search{Program: "blastn", Outfmt: "6 qseqid sseqid evalue", Options: []string{"-word_size=11", "-dust=no", "-ungapped"},
		MaxTargetSeqs: 50, Evalue: 1e-5}
	p, err := ok.Parse()
	if err != nil {
		t.Fatal(err)
	}
	if p.Search.Program != "blastn" || p.Search.TopHits != "auto" || p.Search.MaxTargetSeqs != 50 || p.Search.Evalue != 1e-5 ||
		!slices.Equal(p.Search.Options, []string{"-word_size=11", "-dust=no", "-ungapped"}) || len(p.Options) != 3 {
		t.Errorf("parsed %+v", p)
	}
	// The same search written differently is the same plan.
	same := ok
	same.Options = []string{"-word_size 11", "-dust no", "-ungapped"}
	if q, err := same.Parse(); err != nil || !slices.Equal(q.Search.Options, p.Search.Options) || q.Search.Outfmt != p.Search.Outfmt {
		t.Errorf("equal searches gave %+v (%v), want %+v", q, err, p.Search)
	}

	for _, c := range []struct {
		name string
		edit func(*Search)
		want []string
	}{
		{"unknown program", func(s *Search) { s.Program = "blastz" }, []string{"--program"}},
		{"bad column", func(s *Search) { s.Outfmt = "6 qseqid nosuch" }, []string{"--outfmt", "nosuch"}},
		{"typo in a value", func(s *Search) { s.Options = []string{"-word_size=abc"} }, []string{"word_size", "abc"}},
		{"threads", func(s *Search) { s.Options = []string{"-num_threads=2"} }, []string{"num_threads", "--threads"}},
		{"refused option", func(s *Search) { s.Options = []string{"-out=/tmp/x"} }, []string{"out"}},
		{"top hits", func(s *Search) { s.TopHits = "overfetch=0" }, []string{"--top-hits"}},
		{"max target seqs", func(s *Search) { s.MaxTargetSeqs = 0 }, []string{"--max-target-seqs"}},
		{"evalue", func(s *Search) { s.Evalue = -1 }, []string{"--evalue"}},
		{"all at once", func(s *Search) { s.Program, s.MaxTargetSeqs = "x", 0 }, []string{"--program", "--max-target-seqs"}},
	} {
		s := ok
		c.edit(&s)
		_, err := s.Parse()
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not name %q", c.name, err, w)
			}
		}
	}
}
