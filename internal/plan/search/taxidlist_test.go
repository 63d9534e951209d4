package search

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
)

func TestTaxidList(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "taxa.txt")
	if err := os.WriteFile(good, []byte("# mammals\n9606\n\n10090\n9606\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(bad, []byte("9606\nhuman\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.txt")
	if err := os.WriteFile(empty, []byte("# none\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	req := func(opts ...string) Request {
		return Request{Program: "blastn", Outfmt: "6", Options: opts, MaxTargetSeqs: 10}
	}
	for opt, want := range map[string]blast.Option{
		"-taxidlist=" + good:          {Name: "taxids", Value: "9606,10090"},
		"-negative_taxidlist " + good: {Name: "negative_taxids", Value: "9606,10090"},
	} {
		s, err := req(opt).Parse()
		if err != nil || !reflect.DeepEqual(s.Options, []blast.Option{want}) {
			t.Errorf("%s: %+v, %v; want %+v", opt, s.Options, err, want)
		}
	}
	for opt, want := range map[string]string{
		"-taxidlist=" + bad:                     `bad.txt line 2: "human" is not a taxid`,
		"-taxidlist=" + empty:                   "lists no taxid",
		"-taxidlist=" + filepath.Join(dir, "x"): "no such file",
		"-taxidlist":                            "needs a file of taxids",
	} {
		if _, err := req(opt).Parse(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", opt, err, want)
		}
	}
	// Built in code (a plan read back), the file option itself is refused.
	s := MustParse(req())
	s.Options = []blast.Option{{Name: "taxidlist", Value: good}}
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "not on the workers") {
		t.Errorf("Validate of -taxidlist: %v", err)
	}
}

// A list in a store is kept by location for planning to read; it
// excludes an inline taxid filter and a second list, survives the plan's
// JSON, and regenerated output under it is refused as under -taxids.
func TestTaxidListObject(t *testing.T) {
	req := func(opts ...string) Request {
		return Request{Program: "blastp", Outfmt: "6", Options: opts, MaxTargetSeqs: 10}
	}
	s, err := req("-word_size=3", "-taxidlist=s3://b/lists/t.txt").Parse()
	if err != nil || s.TaxidList == nil || *s.TaxidList != (TaxidList{Location: "s3://b/lists/t.txt"}) || len(s.Options) != 1 {
		t.Fatalf("parsed %+v, %v", s, err)
	}
	if err := s.ReadTaxidList(strings.NewReader("9606\n10090\n")); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s.Options, []blast.Option{{Name: "word_size", Value: "3"}, {Name: "taxids", Value: "9606,10090"}}) {
		t.Errorf("read: %+v", s.Options)
	}
	b, err := s.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var back Spec
	if err := back.UnmarshalJSON(b); err != nil || !reflect.DeepEqual(back.TaxidList, s.TaxidList) || !reflect.DeepEqual(back.Options, s.Options) {
		t.Errorf("JSON round trip: %+v, %v\n%s", back, err, b)
	}
	if r := back.Request(); !reflect.DeepEqual(r.Options, []string{"-word_size=3", "-taxidlist=s3://b/lists/t.txt"}) {
		t.Errorf("Request: %q", r.Options)
	}
	for opts, want := range map[[2]string]string{
		{"-taxidlist=s3://b/t.txt", "-taxids=9606"}:                 "excludes -taxids and -negative_taxids",
		{"-negative_taxidlist=s3://b/t.txt", "-taxids=9606"}:        "excludes -taxids and -negative_taxids",
		{"-taxidlist=s3://b/t.txt", "-negative_taxidlist=s3://b/u"}: "one taxid list only",
	} {
		if _, err := req(opts[0], opts[1]).Parse(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: %v, want %q", opts, err, want)
		}
	}
	meta := req("-taxidlist=s3://b/t.txt")
	meta.Transfer = TransferMetadata
	if _, err := meta.Parse(); err == nil || !strings.Contains(err.Error(), "-taxidlist: regenerated output under a taxid filter is not supported yet") {
		t.Errorf("metadata transfer with a list: %v", err)
	}
}
