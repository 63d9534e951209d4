// Command synthdata writes one of the benchmarks' synthetic workloads
// (test/support/synth) as FASTA: genomes (a: 20 bacterial-like genomes, 44 Mb,
// and 300-letter queries of held-out strains), proteins (b: protein
// families and new members as queries) or long (c: 100-500 kb queries
// against 3 genomes).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/blastfleet/blastfleet/test/support/synth"
)

func main() {
	set := flag.String("set", "genomes", "genomes, proteins or long")
	queries := flag.Int("queries", 1000, "number of queries")
	db := flag.String("db", "db.fa", "database FASTA to write")
	q := flag.String("q", "queries.fa", "query FASTA to write")
	flag.Parse()
	if err := write(*set, *queries, *db, *q); err != nil {
		fmt.Fprintln(os.Stderr, "synthdata:", err)
		os.Exit(1)
	}
}

func write(set string, n int, dbPath, qPath string) error {
	var gen func(db, q io.Writer) error
	switch set {
	case "genomes":
		gen = synth.GenomeSet(n).Write
	case "long":
		gen = synth.LongQuerySet(n).Write
	case "proteins":
		gen = synth.ProteinSet(n).Write
	default:
		return fmt.Errorf("unknown set %q", set)
	}
	return synth.WriteFiles(gen, dbPath, qPath)
}
