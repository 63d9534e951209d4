package blast_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/test/support/refsearch"
	"github.com/blastfleet/blastfleet/test/support/synth"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// BenchmarkQueriesAlone measures what searching each query alone costs
// against BLAST's own batches, side by side in one run (the two
// interleaved; wall time of one blastn process each), on two nucleotide
// shapes:
//   - dense: near-identical 16S-like sequences, where extending hits
//     dominates;
//   - scan: 200 queries of 250 letters against 20 Mb of mostly unrelated
//     sequences, where scanning the database dominates and each query
//     alone rescans it.
//
// go test -run '^$' -bench QueriesAlone -benchtime 3x ./internal/bio/blast/
func BenchmarkQueriesAlone(b *testing.B) {
	testenv.RequireTools(b, "blastn", "makeblastdb")
	ctx := context.Background()
	for _, w := range []struct {
		name string
		o    synth.Options
	}{
		{"dense", synth.Options{Seed: 6, Families: 4, Members: 40, MinLen: 1300, MaxLen: 1600, Mutation: 0.005,
			Related: 0.04, Indels: 0.003, Motifs: 6, Queries: 40, QueryFrac: 0.8}},
		{"scan", synth.Options{Seed: 8, Families: 200, Members: 1, MinLen: 2500, MaxLen: 2500, Queries: 200,
			QueryFrac: 0.1, Unrelated: 8000, Mutation: 0.01}},
	} {
		b.Run(w.name, func(b *testing.B) {
			dir := b.TempDir()
			var db, q bytes.Buffer
			if err := synth.Write(w.o, &db, &q); err != nil {
				b.Fatal(err)
			}
			fa, qf := filepath.Join(dir, "db.fa"), filepath.Join(dir, "q.fa")
			if err := os.WriteFile(fa, db.Bytes(), 0o644); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(qf, q.Bytes(), 0o644); err != nil {
				b.Fatal(err)
			}
			udb, err := refsearch.MakeDB(ctx, fa, "nucl", dir)
			if err != nil {
				b.Fatal(err)
			}
			format, _ := blast.ParseFormat("6 std")
			var alone, batched time.Duration
			for range b.N {
				for _, batch := range []bool{false, true} {
					t := time.Now()
					size := blast.Alone
					if batch {
						size = blast.BatchLetters(blast.Blastn, nil, blast.BatchingBLAST)
					}
					if _, err := blast.Run(ctx, blast.Invocation{Program: blast.Blastn, DB: udb, Query: qf, Format: format,
						MaxTargetSeqs: 500, BatchLetters: size}); err != nil {
						b.Fatal(err)
					}
					if batch {
						batched += time.Since(t)
					} else {
						alone += time.Since(t)
					}
				}
			}
			b.ReportMetric(alone.Seconds()/float64(b.N), "alone-s/op")
			b.ReportMetric(batched.Seconds()/float64(b.N), "batched-s/op")
			b.ReportMetric(alone.Seconds()/batched.Seconds(), "alone/batched")
		})
	}
}
