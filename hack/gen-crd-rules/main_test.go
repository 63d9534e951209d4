package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const typesFile = "../../api/v1alpha1/searchcampaign_types.go"

// The API's markers are what internal/bio/blast's tables generate: a table
// changed without go run ./hack/gen-crd-rules (and make manifests) fails
// here, before any API server sees the CRD.
func TestMarkersCurrent(t *testing.T) {
	src, err := os.ReadFile(typesFile)
	if err != nil {
		t.Fatal(err)
	}
	out, err := generate(src, rules())
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != string(src) {
		t.Errorf("%s is stale: run go run ./hack/gen-crd-rules and make manifests", typesFile)
	}
}

// A marker edited by hand is written back; the rest of the file is left
// as it is.
func TestGenerateRewrites(t *testing.T) {
	src, err := os.ReadFile(typesFile)
	if err != nil {
		t.Fatal(err)
	}
	edits := map[string]string{
		"Enum=blastn;blastp;":     "Enum=blastn;blastz;",
		"'word_size': '^[0-9]+$'": "'word_size': '^.*$'",
		"( +(std|":                "( +(",
	}
	edited := string(src)
	for from, to := range edits {
		if !strings.Contains(edited, from) {
			t.Fatalf("%s lacks %q", typesFile, from)
		}
		edited = strings.Replace(edited, from, to, 1)
	}
	edited = strings.Replace(edited, "// Program is a BLAST program.", "// Program is a BLAST program, edited.", 1)
	file := filepath.Join(t.TempDir(), "types.go")
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(file, true); err == nil || !strings.Contains(err.Error(), "markers differ") {
		t.Errorf("-check of an edited file: %v", err)
	}
	if err := run(file, false); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(string(src), "// Program is a BLAST program.", "// Program is a BLAST program, edited.", 1); string(got) != want {
		t.Errorf("regenerated file differs from the original but for the hand-written comment")
	}
	if err := run(file, true); err != nil {
		t.Errorf("-check after generation: %v", err)
	}

	// A declaration gone is an error, not a silent skip.
	if _, err := generate([]byte("package v1alpha1\n"), rules()); err == nil || !strings.Contains(err.Error(), "is not found") {
		t.Errorf("generate without the types: %v", err)
	}
}
