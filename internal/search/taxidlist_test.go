package search

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/blast"
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
