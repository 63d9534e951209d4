package blast_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/blastfleet/blastfleet/internal/blast"
	"github.com/blastfleet/blastfleet/internal/refsearch"
	"github.com/blastfleet/blastfleet/internal/synth"
	"github.com/blastfleet/blastfleet/internal/testenv"
)

// TestRunSearchesEachQueryAlone checks the mechanism the correctness
// contract rests on, for every program: blast.Run of a file of many
// queries prints exactly what one BLAST process per query prints.
func TestRunSearchesEachQueryAlone(t *testing.T) {
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
	var pdb, pq, ndb, nq bytes.Buffer
	if err := synth.Write(synth.Options{Seed: 3, Protein: true, Families: 6, Members: 6, MinLen: 80, MaxLen: 300,
		Mutation: 0.05, Queries: 12, QueryFrac: 0.7, Unrelated: 20}, &pdb, &pq); err != nil {
		t.Fatal(err)
	}
	if err := synth.Write(synth.Options{Seed: 4, Families: 4, Members: 12, MinLen: 1200, MaxLen: 1500, Mutation: 0.005,
		Related: 0.04, Indels: 0.003, Queries: 8, QueryFrac: 0.8, LongQueries: 4}, &ndb, &nq); err != nil {
		t.Fatal(err)
	}
	dbs := map[string]string{}
	for name, fa := range map[string]struct {
		data   []byte
		dbtype string
	}{
		"prot":         {pdb.Bytes(), "prot"},
		"nucl":         {ndb.Bytes(), "nucl"},
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
	format, err := blast.ParseFormat("6 std")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		program blast.Program
		db      string
		queries string
	}{
		{blast.Blastn, dbs["nucl"], nuclQ},
		{blast.Blastp, dbs["prot"], protQ},
		{blast.Blastx, dbs["prot"], codingQ},
		{blast.Tblastn, dbs["prot-as-nucl"], protQ},
		{blast.Tblastx, dbs["prot-as-nucl"], codingQ},
	} {
		t.Run(string(c.program), func(t *testing.T) {
			got, err := blast.Run(ctx, blast.Invocation{Program: c.program, DB: c.db, Query: c.queries, Format: format, MaxTargetSeqs: 500})
			if err != nil {
				t.Fatal(err)
			}
			want, err := refsearch.SearchAlone(ctx, string(c.program), c.db, c.queries, format.Arg(), "-max_target_seqs", "500")
			if err != nil {
				t.Fatal(err)
			}
			if n := bytes.Count(want, []byte("\n")); n < 20 {
				t.Fatalf("only %d lines: the data should give real hits", n)
			}
			if d := refsearch.Diff(got, want); d != "" {
				t.Fatalf("one run of all queries differs from one process per query: %s", d)
			}
		})
	}
}

// backTranslate turns protein FASTA into coding nucleotide FASTA, one fixed
// codon per amino acid, so translated searches find the proteins' hits.
func backTranslate(t *testing.T, fa []byte) []byte {
	t.Helper()
	codon := map[byte]string{'A': "GCT", 'C': "TGT", 'D': "GAT", 'E': "GAA", 'F': "TTT", 'G': "GGT", 'H': "CAT",
		'I': "ATT", 'K': "AAA", 'L': "CTG", 'M': "ATG", 'N': "AAT", 'P': "CCG", 'Q': "CAG", 'R': "CGT",
		'S': "AGC", 'T': "ACC", 'V': "GTG", 'W': "TGG", 'Y': "TAT"}
	var out bytes.Buffer
	for _, line := range bytes.SplitAfter(fa, []byte("\n")) {
		if len(line) == 0 || line[0] == '>' {
			out.Write(line)
			continue
		}
		for _, aa := range bytes.TrimSpace(line) {
			c, ok := codon[aa]
			if !ok {
				t.Fatalf("no codon for %q", aa)
			}
			out.WriteString(c)
		}
		out.WriteByte('\n')
	}
	return out.Bytes()
}
