package search

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A sequence id list is kept by location, for workers to read; it
// survives the plan's JSON and Request, and what BLAST+ refuses beside it
// (or blastfleet cannot serve under it yet) is refused naming both.
func TestSeqidList(t *testing.T) {
	req := func(outfmt string, opts ...string) Request {
		return Request{Program: "blastp", Outfmt: outfmt, Options: opts, MaxTargetSeqs: 10}
	}
	for opt, want := range map[string]SeqidList{
		"-seqidlist=s3://lists/ids.txt":    {Location: "s3://lists/ids.txt"},
		"-negative_seqidlist /tmp/ids.txt": {Location: "/tmp/ids.txt", Negative: true},
	} {
		s, err := req("6", opt, "-word_size=3").Parse()
		if err != nil || s.SeqidList == nil || *s.SeqidList != want || len(s.Options) != 1 {
			t.Fatalf("%s: %+v, %v; want %+v", opt, s, err, want)
		}
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var back Spec
		if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, s) {
			t.Errorf("%s: JSON gave %+v, %v", opt, back, err)
		}
		if again, err := s.Request().Parse(); err != nil || !reflect.DeepEqual(again, s) {
			t.Errorf("%s: Request().Parse() gave %+v, %v", opt, again, err)
		}
	}
	for _, tc := range []struct {
		r    Request
		want string
	}{
		{req("6", "-seqidlist=a", "-taxids=9606"), "-seqidlist and -taxids exclude each other"},
		{req("6", "-negative_seqidlist=a", "-taxidlist=s3://b/t.txt"), "-negative_seqidlist and -taxidlist exclude each other"},
		{req("6", "-seqidlist=a", "-negative_seqidlist=b"), "one sequence id list only"},
		{req("6", "-seqidlist"), "needs a file of sequence ids"},
		{req("0", "-seqidlist=a"), "regenerated output under a sequence id list"},
		{req("6", "-gilist=a"), "no GI index"},
		{Request{Program: "psiblast", Outfmt: "6", Options: []string{"-seqidlist=a"}, MaxTargetSeqs: 10}, "with --program psiblast is not supported"},
	} {
		if _, err := tc.r.Parse(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.r.Options, err, tc.want)
		}
	}
}

// Read reads a list file as workers do; a missing one is named.
func TestSeqidListRead(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ids.txt")
	if err := os.WriteFile(path, []byte("XP_1.1\n\nref|XP_2.1|\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := SeqidList{Location: path}.Read(context.Background())
	if err != nil || !reflect.DeepEqual(l.Lines, []string{"XP_1.1", "ref|XP_2.1|"}) {
		t.Errorf("Read: %+v, %v", l, err)
	}
	if _, err := (SeqidList{Location: filepath.Join(dir, "none.txt")}).Read(context.Background()); err == nil || !strings.Contains(err.Error(), "none.txt") {
		t.Errorf("a missing list: %v", err)
	}
	if err := CheckSeqidListFile("seqidlist", filepath.Join(dir, "none.txt")); err == nil {
		t.Error("CheckSeqidListFile of a missing file: no error")
	}
}
