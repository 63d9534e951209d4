package blast_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/bio/fasta"
	"github.com/blastfleet/blastfleet/test/support/refsearch"
	"github.com/blastfleet/blastfleet/test/support/synth"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// TestBatchRule proves the rule the correctness contract rests on, against
// BLAST+ itself, for every program: blast.Run of a query file in batches of
// B prints exactly what the file cut at blast.BatchEnds and run piece by
// piece prints (so BatchEnds is BLAST+'s own rule, and blastn's adaptive
// batch size is off once BATCH_SIZE is set); for the programs whose size
// is fixed, plain BLAST+ with no setting prints the same (so B is BLAST+'s
// own); and with B = 1, one process per query.
func TestBatchRule(t *testing.T) {
	testenv.RequireTools(t, "blastn", "blastp", "blastx", "tblastn", "tblastx", "makeblastdb")
	ctx := context.Background()
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var pdb, pq, pq2, ndb, nq, sdb, sq bytes.Buffer
	if err := synth.Write(synth.Options{Seed: 3, Protein: true, Families: 6, Members: 6, MinLen: 80, MaxLen: 300,
		Mutation: 0.05, Queries: 60, QueryFrac: 1, Unrelated: 20}, &pdb, &pq); err != nil {
		t.Fatal(err)
	}
	// tblastn's batches are twice as large: as many queries again.
	if err := synth.Write(synth.Options{Seed: 3, Protein: true, Families: 6, Members: 6, MinLen: 80, MaxLen: 300,
		Mutation: 0.05, Queries: 120, QueryFrac: 1, Unrelated: 20}, io.Discard, &pq2); err != nil {
		t.Fatal(err)
	}
	if err := synth.Write(synth.Options{Seed: 4, Families: 4, Members: 12, MinLen: 1200, MaxLen: 1500, Mutation: 0.005,
		Related: 0.04, Indels: 0.003, Queries: 8, QueryFrac: 0.8, LongQueries: 4}, &ndb, &nq); err != nil {
		t.Fatal(err)
	}
	if err := synth.Write(synth.BatchingSensitive(), &sdb, &sq); err != nil {
		t.Fatal(err)
	}
	dbs := map[string]string{}
	for name, fa := range map[string]struct {
		data   []byte
		dbtype string
	}{
		"prot":         {pdb.Bytes(), "prot"},
		"nucl":         {ndb.Bytes(), "nucl"},
		"sensitive":    {sdb.Bytes(), "nucl"},
		"prot-as-nucl": {backTranslate(t, pdb.Bytes()), "nucl"},
	} {
		d := filepath.Join(dir, name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		db, err := refsearch.MakeDB(ctx, write(name+".fa", fa.data), fa.dbtype, d)
		if err != nil {
			t.Fatal(err)
		}
		dbs[name] = db
	}
	protQ, nuclQ, codingQ := write("pq.fa", pq.Bytes()), write("nq.fa", nq.Bytes()), write("cq.fa", backTranslate(t, pq.Bytes()))
	sensQ, protQ2 := write("sq.fa", sq.Bytes()), write("pq2.fa", pq2.Bytes())
	format, err := blast.ParseFormat("6 std")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		program blast.Program
		db      string
		queries string
		task    string
		b       int // 0: the program's B
		plain   bool
		alone   bool // also check B = 1 against one process per query
	}{
		// -task blastn on near-identical data: a query's hits change with
		// its place in a batch, so a wrong cut shows (checked below) at
		// these batches of 20,000 letters; the rule is B's whatever B.
		{"blastn/sensitive", blast.Blastn, dbs["sensitive"], sensQ, "blastn", 20000, false, false},
		{"blastn/megablast", blast.Blastn, dbs["nucl"], nuclQ, "", 3000, false, true},
		{"blastp", blast.Blastp, dbs["prot"], protQ, "", 0, true, true},
		{"blastx", blast.Blastx, dbs["prot"], codingQ, "", 0, true, false},
		{"tblastn", blast.Tblastn, dbs["prot-as-nucl"], protQ2, "", 0, true, false},
		{"tblastx", blast.Tblastx, dbs["prot-as-nucl"], codingQ, "", 0, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var opts []blast.Option
			args := []string{"-max_target_seqs", "500"}
			if c.task != "" {
				opts = []blast.Option{{Name: "task", Value: c.task}}
				args = append(args, "-task", c.task)
			}
			b := c.b
			if b == 0 {
				b = blast.BatchLetters(c.program, opts, blast.BatchingBLAST)
			}
			run := func(queries string, b int) []byte {
				t.Helper()
				out, err := blast.Run(ctx, blast.Invocation{Program: c.program, DB: c.db, Query: queries, Format: format,
					MaxTargetSeqs: 500, Options: opts, BatchLetters: b})
				if err != nil {
					t.Fatal(err)
				}
				return out
			}
			whole := run(c.queries, b)
			if n := bytes.Count(whole, []byte("\n")); n < 20 {
				t.Fatalf("only %d lines: the data should give real hits", n)
			}
			recs := readFASTA(t, c.queries)
			lengths := make([]int, len(recs))
			for i, r := range recs {
				lengths[i] = len(r.Seq)
			}
			// pieces runs the file cut at ends, piece by piece.
			pieces := func(ends []int) []byte {
				t.Helper()
				var out []byte
				first := 0
				for i, e := range ends {
					out = append(out, run(writeRecords(t, dir, fmt.Sprintf("%s-%d.fa", c.program, i), recs[first:e]), b)...)
					first = e
				}
				return out
			}
			ends := blast.BatchEnds(lengths, b)
			if len(ends) < 2 {
				t.Fatalf("one batch of %d letters: the data should make several", b)
			}
			if d := refsearch.Diff(pieces(ends), whole); d != "" {
				t.Fatalf("the file cut at BatchEnds (%d batches) differs from one run: %s", len(ends), d)
			}
			if c.task == "blastn" {
				// The data must tell a wrong rule from the right one: the
				// query that reaches B kept out of its batch, and each
				// query alone, both answer otherwise.
				if d := refsearch.Diff(pieces(shiftedEnds(lengths, b)), whole); d == "" {
					t.Fatal("batches that close before the query reaching B answer as BLAST's: the data cannot tell the rule")
				}
				if d := refsearch.Diff(run(c.queries, blast.Alone), whole); d == "" {
					t.Fatal("each query alone answers as BLAST's batches: the data cannot tell batching")
				}
			}
			if c.plain {
				plain, err := refsearch.Search(ctx, string(c.program), c.db, c.queries, format.Arg(), args...)
				if err != nil {
					t.Fatal(err)
				}
				if d := refsearch.Diff(whole, plain); d != "" {
					t.Fatalf("BATCH_SIZE=%d differs from plain %s (B is not BLAST+'s own): %s", b, c.program, d)
				}
			}
			if !c.alone {
				return
			}
			alone, err := refsearch.SearchAlone(ctx, string(c.program), c.db, c.queries, format.Arg(), args...)
			if err != nil {
				t.Fatal(err)
			}
			if d := refsearch.Diff(run(c.queries, blast.Alone), alone); d != "" {
				t.Fatalf("BATCH_SIZE=1 differs from one process per query: %s", d)
			}
		})
	}
}

// shiftedEnds is the rule off by one: a batch closes before the query that
// would take it to B letters or more.
func shiftedEnds(lengths []int, b int) []int {
	var ends []int
	read := 0
	for i, n := range lengths {
		if read > 0 && read+n >= b {
			ends = append(ends, i)
			read = 0
		}
		read += n
	}
	return append(ends, len(lengths))
}

func readFASTA(t *testing.T, path string) []*fasta.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := fasta.ReadAll(f, path, fasta.Protein)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func writeRecords(t *testing.T, dir, name string, recs []*fasta.Record) string {
	t.Helper()
	var buf bytes.Buffer
	for _, r := range recs {
		if err := fasta.Write(&buf, r); err != nil {
			t.Fatal(err)
		}
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// backTranslate turns protein FASTA into coding nucleotide FASTA, one fixed
// codon per amino acid, so translated searches find the proteins' hits.
func backTranslate(t *testing.T, fa []byte) []byte {
	t.Helper()
	out, err := synth.BackTranslate(fa)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
