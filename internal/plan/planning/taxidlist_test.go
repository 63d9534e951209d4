package planning

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/plan/search"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// A taxid list object is read into the plan's options once, from the
// campaign's own store (the output's credentials, the unprefixed AWS_*
// variables); a missing one is refused naming it.
func TestReadTaxidList(t *testing.T) {
	ctx := context.Background()
	m := testenv.StartMinIO(t)
	m.MakeBucket(t, "out")
	m.Setenv(t)
	ids := []string{"9606"}
	for i := range 3000 { // over what a blastOptions value may hold
		ids = append(ids, strconv.Itoa(1000000+i))
	}
	body := "# a comment\n" + strings.Join(ids, "\n") + "\n9606\n"
	local := filepath.Join(t.TempDir(), "taxa.txt")
	if err := os.WriteFile(local, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := objstore.OpenAs(ctx, objstore.RoleOutput, "s3://out")
	if err != nil {
		t.Fatal(err)
	}
	put := func(key, data string) {
		if err := st.Put(ctx, key, strings.NewReader(data), int64(len(data))); err != nil {
			t.Fatal(err)
		}
	}
	put("lists/taxa.txt", body)

	s := search.MustParse(search.Request{Program: "blastp", Outfmt: "6", MaxTargetSeqs: 5, Options: []string{"-negative_taxidlist=s3://out/lists/taxa.txt"}})
	if s.TaxidList == nil || !s.TaxidList.Negative || len(s.Options) != 0 {
		t.Fatalf("parsed %+v", s)
	}
	if err := readTaxidList(ctx, &s); err != nil {
		t.Fatal(err)
	}
	// The same ids as the file read here gives (each once, in order).
	want := search.MustParse(search.Request{Program: "blastp", Outfmt: "6", MaxTargetSeqs: 5, Options: []string{"-negative_taxidlist=" + local}})
	if !slices.Equal(s.Options, want.Options) || len(s.Options) != 1 || s.Options[0].Name != "negative_taxids" {
		t.Fatalf("read %d options, want %+v", len(s.Options), want.Options[0].Name)
	}
	// Read once: a planned spec is left alone.
	before := s.Options[0].Value
	if err := readTaxidList(ctx, &s); err != nil || len(s.Options) != 1 || s.Options[0].Value != before {
		t.Errorf("read again: %v, %d options", err, len(s.Options))
	}
	// The plan says where the ids came from, and Request gives the list
	// back, not its ids: the operator compares it with the campaign's.
	if r := s.Request(); !slices.Equal(r.Options, []string{"-negative_taxidlist=s3://out/lists/taxa.txt"}) {
		t.Errorf("Request options %q", r.Options)
	}
	if err := s.Validate(); err != nil {
		t.Errorf("a planned spec with its list: %v", err)
	}

	missing := search.MustParse(search.Request{Program: "blastp", Outfmt: "6", MaxTargetSeqs: 5, Options: []string{"-taxidlist=s3://out/lists/none.txt"}})
	if err := readTaxidList(ctx, &missing); err == nil || !strings.Contains(err.Error(), "the taxid list s3://out/lists/none.txt does not exist") {
		t.Errorf("missing list: %v", err)
	}
	put("lists/bad.txt", "9606\nhuman\n")
	bad := search.MustParse(search.Request{Program: "blastp", Outfmt: "6", MaxTargetSeqs: 5, Options: []string{"-taxidlist=s3://out/lists/bad.txt"}})
	if err := readTaxidList(ctx, &bad); err == nil || !strings.Contains(err.Error(), `s3://out/lists/bad.txt line 2: "human" is not a taxid`) {
		t.Errorf("bad list: %v", err)
	}
}
