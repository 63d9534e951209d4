// Command gen-crd-rules writes the SearchCampaign CRD's markers that
// restate internal/bio/blast's tables: the program enum, the outfmt pattern,
// the BLAST option allowlist, its flags and value patterns, and the rules
// on programs' options and output. Each marker line is found beside the
// declaration it annotates and rewritten in place; -check only reports
// the stale ones. make manifests runs it before controller-gen.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
)

func main() {
	file := flag.String("file", "api/v1alpha1/searchcampaign_types.go", "the Go file holding the SearchCampaign's types")
	check := flag.Bool("check", false, "write nothing; exit 1 if the file's markers differ from internal/bio/blast's tables")
	flag.Parse()
	if err := run(*file, *check); err != nil {
		fmt.Fprintln(os.Stderr, "gen-crd-rules:", err)
		os.Exit(1)
	}
}

func run(file string, check bool) error {
	src, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	out, err := generate(src, rules())
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if bytes.Equal(out, src) {
		return nil
	}
	if check {
		return fmt.Errorf("%s: markers differ from internal/bio/blast's tables: run go run ./hack/gen-crd-rules and make manifests", file)
	}
	return os.WriteFile(file, out, 0o644)
}
