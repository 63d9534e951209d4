package search

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
)

var good = Request{Program: "blastn", Outfmt: "6 qseqid sseqid evalue", Options: []string{"-word_size=11", "-dust=no", "-ungapped"},
	MaxTargetSeqs: 50, Evalue: 1e-5}

func TestParse(t *testing.T) {
	s, err := good.Parse()
	if err != nil {
		t.Fatal(err)
	}
	want := []blast.Option{{Name: "word_size", Value: "11"}, {Name: "dust", Value: "no"}, {Name: "ungapped"}}
	if s.Program != blast.Blastn || !s.TopHits.Auto || s.MaxTargetSeqs != 50 || s.Evalue != 1e-5 ||
		!reflect.DeepEqual(s.Options, want) || s.Format.UserArg() != "6 qseqid sseqid evalue" {
		t.Errorf("parsed %+v", s)
	}
	// The same search written differently is the same spec.
	same := good
	same.Options = []string{"-word_size 11", "-dust no", "-ungapped"}
	if q, err := same.Parse(); err != nil || !reflect.DeepEqual(q, s) {
		t.Errorf("equal searches gave %+v (%v), want %+v", q, err, s)
	}
	if back, err := s.Request().Parse(); err != nil || !reflect.DeepEqual(back, s) {
		t.Errorf("Request().Parse() = %+v (%v), want %+v", back, err, s)
	}

	for _, c := range []struct {
		name string
		edit func(*Request)
		want []string
	}{
		{"unknown program", func(r *Request) { r.Program = "blastz" }, []string{"--program"}},
		{"bad column", func(r *Request) { r.Outfmt = "6 qseqid nosuch" }, []string{"--outfmt", "nosuch"}},
		{"typo in a value", func(r *Request) { r.Options = []string{"-word_size=abc"} }, []string{"word_size", "abc"}},
		{"a value smuggling a flag", func(r *Request) { r.Options = []string{"-word_size=3 -out /tmp/x"} }, []string{"word_size", "whole number"}},
		{"threads", func(r *Request) { r.Options = []string{"-num_threads=2"} }, []string{"num_threads", "--threads"}},
		{"refused option", func(r *Request) { r.Options = []string{"-out=/tmp/x"} }, []string{"out"}},
		{"top hits", func(r *Request) { r.TopHits = "overfetch=0" }, []string{"--top-hits"}},
		{"max target seqs", func(r *Request) { r.MaxTargetSeqs = 0 }, []string{"--max-target-seqs"}},
		{"evalue", func(r *Request) { r.Evalue = -1 }, []string{"--evalue"}},
		{"all at once", func(r *Request) { r.Program, r.MaxTargetSeqs = "x", 0 }, []string{"--program", "--max-target-seqs"}},
		{"another program's option", func(r *Request) { r.Options = []string{"-num_iterations=3"} },
			[]string{"-num_iterations is an option of psiblast only, not of blastn"}},
		{"psiblast report", func(r *Request) { r.Program, r.Options, r.Outfmt = "psiblast", nil, "0" },
			[]string{"--program psiblast writes tabular output only"}},
		{"rpsblast metadata", func(r *Request) { r.Program, r.Options, r.Transfer = "rpsblast", nil, TransferMetadata },
			[]string{"--program rpsblast writes tabular output only"}},
	} {
		r := good
		c.edit(&r)
		_, err := r.Parse()
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

// The whole-database programs take tabular output and their own options.
func TestParseWholeDatabasePrograms(t *testing.T) {
	for _, p := range []string{"psiblast", "rpsblast", "rpstblastn"} {
		r := good
		r.Program, r.Options = p, nil
		if p == "psiblast" {
			r.Options = []string{"-num_iterations=3"}
		}
		if _, err := r.Parse(); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

func TestJSON(t *testing.T) {
	s, err := good.Parse()
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"program":"blastn","outfmt":{"code":6,"columns":["qseqid","sseqid","evalue"]},"maxTargetSeqs":50,"evalue":0.00001,` +
		`"options":[{"name":"word_size","value":"11"},{"name":"dust","value":"no"},{"name":"ungapped"}],"topHits":"auto","batching":"blast"}`
	if string(b) != want {
		t.Errorf("JSON\n got %s\nwant %s", b, want)
	}
	var back Spec
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, s) {
		t.Errorf("decoded %+v (%v), want %+v", back, err, s)
	}

	// A search without its batching, or with an option or format as a
	// command line's string, is refused naming the field.
	for field, bad := range map[string]string{
		"batching":   strings.Replace(want, `,"batching":"blast"`, "", 1),
		"options[0]": strings.Replace(want, `{"name":"word_size","value":"11"}`, `"-word_size=11"`, 1),
		"outfmt":     strings.Replace(want, `{"code":6,"columns":["qseqid","sseqid","evalue"]}`, `"6 qseqid sseqid evalue"`, 1),
	} {
		var got Spec
		if err := json.Unmarshal([]byte(bad), &got); err == nil || !strings.Contains(err.Error(), "search."+field) {
			t.Errorf("%s: decoding %s: %v, want an error naming search.%s", field, bad, err, field)
		}
	}
	alone := s
	alone.Batching = blast.BatchingAlone
	b, err = json.Marshal(alone)
	if err != nil || !strings.Contains(string(b), `"batching":"alone"`) {
		t.Errorf("batching alone encoded as %s (%v)", b, err)
	}

	// What a reader refuses, it names.
	for _, c := range []struct{ name, doc, want string }{
		{"value", `{"program":"blastn","outfmt":{"code":6},"maxTargetSeqs":5,"options":[{"name":"word_size","value":"abc"}],"topHits":"auto"}`,
			`search.options[0]: -word_size takes`},
		{"flag with a value", `{"program":"blastn","outfmt":{"code":6},"maxTargetSeqs":5,"options":[{"name":"ungapped","value":""}],"topHits":"auto"}`,
			`search.options[0]: -ungapped takes no value`},
		{"refused", `{"program":"blastn","outfmt":{"code":6},"maxTargetSeqs":5,"options":[{"name":"out","value":"/x"}],"topHits":"auto"}`,
			`search.options[0]: -out is not allowed`},
		{"format", `{"program":"blastn","outfmt":{"code":18},"maxTargetSeqs":5,"topHits":"auto"}`, `search.outfmt`},
		{"program", `{"program":"blastz","outfmt":{"code":6},"maxTargetSeqs":5,"topHits":"auto"}`, `search.program`},
		{"cut-offs", `{"program":"blastn","outfmt":{"code":6},"maxTargetSeqs":0,"topHits":"auto"}`, `--max-target-seqs`},
	} {
		var s Spec
		err := json.Unmarshal([]byte(c.doc), &s)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to say %q", c.name, err, c.want)
		}
	}
}

// ParseJSON gives back the spec that was encoded, and refuses what
// CheckWhole refuses though each field is valid alone.
func TestParseJSON(t *testing.T) {
	s := MustParse(good)
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if back, err := ParseJSON(b); err != nil || !reflect.DeepEqual(back, s) {
		t.Errorf("ParseJSON = %+v (%v), want %+v", back, err, s)
	}
	for name, c := range map[string]struct{ doc, want string }{
		"sam for blastp": {`{"program":"blastp","outfmt":{"code":17},"maxTargetSeqs":5,"topHits":"auto","batching":"blast"}`, "SAM"},
		"another program's option": {`{"program":"blastn","outfmt":{"code":6},"maxTargetSeqs":5,"topHits":"auto","batching":"blast",` +
			`"options":[{"name":"num_iterations","value":"3"}]}`, "-num_iterations is an option of psiblast only"},
		"not JSON": {`-word_size=11`, "invalid character"},
	} {
		if _, err := ParseJSON([]byte(c.doc)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}
