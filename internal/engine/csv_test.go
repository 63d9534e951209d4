package engine_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/test/support/refsearch"
)

// -outfmt 10 (CSV) merged over shard groups is BLAST's own CSV, byte for
// byte, titles holding commas included (BLAST quotes nothing).
func TestCSVEqualsUnsharded(t *testing.T) {
	f := synthFixture(t, nuclFamilies())
	// Commas in every title: the engine must not split on them.
	data, err := os.ReadFile(f.fasta)
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.ReplaceAll(data, []byte(" member "), []byte(", member "))
	if err := os.WriteFile(f.fasta, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if f.unsharded, err = refsearch.MakeDB(context.Background(), f.fasta, string(f.dbtype), t.TempDir()); err != nil {
		t.Fatal(err)
	}
	s := search{program: blast.Blastn, outfmt: "10 std stitle", workers: 2, groupBytes: 1}
	want := s.reference(t, f, false)
	if !bytes.Contains(want, []byte(", member ")) || bytes.Contains(want, []byte("\t")) {
		t.Fatalf("the reference is not CSV with commas in titles:\n%.300s", want)
	}
	out := filepath.Join(t.TempDir(), "out.csv")
	s.run(t, f.shards(t, 3), f.queries, out)
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if d := refsearch.Diff(got, want); d != "" {
		t.Fatalf("merged CSV differs from BLAST's: %s", d)
	}
}
