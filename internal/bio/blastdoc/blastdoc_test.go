package blastdoc_test

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	. "github.com/blastfleet/blastfleet/internal/bio/blastdoc"
	"github.com/blastfleet/blastfleet/test/support/refsearch"
)

// family writes n mutated copies of each of k random sequences: near
// identical subjects, with ties among them.
func family(r *rand.Rand, alphabet string, k, n, length int, rate float64, prefix string) []string {
	var recs []string
	for f := 0; f < k; f++ {
		base := make([]byte, length)
		for i := range base {
			base[i] = alphabet[r.Intn(len(alphabet))]
		}
		for c := 0; c < n; c++ {
			s := append([]byte(nil), base...)
			for i := range s {
				if r.Float64() < rate {
					s[i] = alphabet[r.Intn(len(alphabet))]
				}
			}
			recs = append(recs, fmt.Sprintf(">%s%d_%d family %d copy %d\n%s\n", prefix, f, c, f, c, s))
		}
	}
	return recs
}

func run(t *testing.T, dir string, argv ...string) []byte {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %v: %s", argv, err, stderr.String())
	}
	return out
}

// TestBatchFromSingles: for every framed format, BLAST+'s report of a
// batch equals the pieces of its one-query reports (queries short enough
// that BLAST+ searches the batch as it searches each alone).
func TestBatchFromSingles(t *testing.T) {
	if _, err := exec.LookPath("blastn"); err != nil {
		t.Skip("BLAST+ not installed")
	}
	r := rand.New(rand.NewSource(7))
	for _, c := range []struct {
		program, dbtype, alphabet string
	}{{"blastn", "nucl", "ACGT"}, {"blastp", "prot", "ACDEFGHIKLMNPQRSTVWY"}} {
		dir := t.TempDir()
		db := family(r, c.alphabet, 4, 12, 400, 0.08, "s")
		// Two exact copies: subjects that tie in everything.
		db = append(db, strings.Replace(db[0], ">s0_0 ", ">dup_a ", 1), strings.Replace(db[0], ">s0_0 ", ">dup_b ", 1))
		if err := os.WriteFile(filepath.Join(dir, "db.fa"), []byte(strings.Join(db, "")), 0o644); err != nil {
			t.Fatal(err)
		}
		run(t, dir, "makeblastdb", "-in", "db.fa", "-dbtype", c.dbtype, "-parse_seqids", "-out", "mydb", "-title", "my db")
		qs := family(r, c.alphabet, 3, 1, 300, 0.05, "q")
		// A query that hits nothing.
		qs = append(qs[:1], append(family(r, c.alphabet, 1, 1, 60, 0, "none"), qs[1:]...)...)
		if err := os.WriteFile(filepath.Join(dir, "all.fa"), []byte(strings.Join(qs, "")), 0o644); err != nil {
			t.Fatal(err)
		}
		for i, q := range qs {
			if err := os.WriteFile(filepath.Join(dir, "q"+strconv.Itoa(i)+".fa"), []byte(q), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, code := range Codes {
			if code == 11 {
				archives(t, dir, c.program, len(qs))
				continue
			}
			arg := strconv.Itoa(code)
			if code == 7 {
				arg = "7 qseqid sseqid evalue bitscore"
			}
			want := run(t, dir, c.program, "-db", "mydb", "-query", "all.fa", "-outfmt", arg, "-max_target_seqs", "20")
			var got []byte
			for i := range qs {
				doc := run(t, dir, c.program, "-db", "mydb", "-query", "q"+strconv.Itoa(i)+".fa", "-outfmt", arg, "-max_target_seqs", "20")
				piece, err := Piece(code, doc, i+1, len(qs))
				if err != nil {
					t.Fatalf("%s outfmt %d query %d: %v", c.program, code, i, err)
				}
				got = append(got, piece...)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s outfmt %d: %s", c.program, code, refsearch.Diff(got, want))
			}
		}
	}
}

// archives: the one-query archives (-outfmt 11) of a run's queries, one
// after the other, are an archive blast_formatter reads whole: each query
// comes out as BLAST+ prints it searched alone, in every format.
func archives(t *testing.T, dir, program string, n int) {
	t.Helper()
	var all []byte
	for i := range n {
		doc := run(t, dir, program, "-db", "mydb", "-query", "q"+strconv.Itoa(i)+".fa", "-outfmt", "11", "-max_target_seqs", "20")
		piece, err := Piece(11, doc, i+1, n)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(piece, doc) {
			t.Fatalf("query %d: an archive's piece is not the query's archive", i)
		}
		all = append(all, piece...)
	}
	if err := os.WriteFile(filepath.Join(dir, "all.asn"), all, 0o644); err != nil {
		t.Fatal(err)
	}
	// XML, JSON and tabular comments from blast_formatter are framed as
	// one run (it numbers iterations across the archives, each query
	// still Query_1): pairwise and tabular show the hits whole. For
	// blastp, blast_formatter's pairwise report lacks the composition
	// statistics' columns (a, alpha, sigma) BLAST itself prints, from any
	// archive of BLAST's own: tabular only.
	formats := []string{"6", "0"}
	if program == "blastp" {
		formats = formats[:1]
	}
	for _, f := range formats {
		var want []byte
		for i := range n {
			want = append(want, run(t, dir, program, "-db", "mydb", "-query", "q"+strconv.Itoa(i)+".fa", "-outfmt", f, "-max_target_seqs", "20")...)
		}
		got := run(t, dir, "blast_formatter", "-archive", "all.asn", "-outfmt", f)
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: blast_formatter -outfmt %s of the archives: %s", program, f, refsearch.Diff(got, want))
		}
	}
}

func TestSplitRefusesOtherReports(t *testing.T) {
	for _, code := range Codes {
		if _, err := Split(code, []byte("qseqid\tsseqid\n")); err == nil {
			t.Fatalf("outfmt %d: Split accepted a tabular line", code)
		}
	}
	if _, err := Split(6, []byte("x")); err == nil {
		t.Fatal("outfmt 6 is not framed, Split accepted it")
	}
}

// familyDB builds mydb, a nucleotide database of 3 families of 8
// subjects mutated at rate, in a new directory, with BLAST+ (skipped
// without it); r goes on drawing from seed.
func familyDB(t *testing.T, seed int64, rate float64) (r *rand.Rand, dir string, db []string) {
	t.Helper()
	if _, err := exec.LookPath("blastn"); err != nil {
		t.Skip("BLAST+ not installed")
	}
	r = rand.New(rand.NewSource(seed))
	dir = t.TempDir()
	db = family(r, "ACGT", 3, 8, 500, rate, "s")
	if err := os.WriteFile(filepath.Join(dir, "db.fa"), []byte(strings.Join(db, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, dir, "makeblastdb", "-in", "db.fa", "-dbtype", "nucl", "-parse_seqids", "-out", "mydb", "-title", "my db")
	return r, dir, db
}

// TestPiecesOfBatches: for every framed format and the archive, BLAST+'s
// report of a query file searched in batches equals the pieces of each
// batch's own report (the batch's queries searched by themselves, as one
// batch), numbered as in the whole run.
func TestPiecesOfBatches(t *testing.T) {
	r, dir, _ := familyDB(t, 8, 0.06)
	// Seven queries of 300 letters in batches of 1000 letters: 4 and 3,
	// a query without hits in the second.
	qs := family(r, "ACGT", 3, 2, 300, 0.05, "q")
	qs = append(qs[:5], append(family(r, "ACGT", 1, 1, 300, 0, "none"), qs[5:]...)...)
	batches := [][]string{qs[:4], qs[4:]}
	if err := os.WriteFile(filepath.Join(dir, "all.fa"), []byte(strings.Join(qs, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, b := range batches {
		if err := os.WriteFile(filepath.Join(dir, "b"+strconv.Itoa(i)+".fa"), []byte(strings.Join(b, "")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, code := range Codes {
		arg := strconv.Itoa(code)
		if code == 7 {
			arg = "7 qseqid sseqid evalue bitscore"
		}
		blast := func(query string) []byte {
			return run(t, dir, "env", "BATCH_SIZE=1000", "blastn", "-db", "mydb", "-query", query, "-outfmt", arg, "-max_target_seqs", "5")
		}
		want := blast("all.fa")
		var got []byte
		first := 1
		for i, b := range batches {
			pieces, err := Pieces(code, blast("b"+strconv.Itoa(i)+".fa"), first, len(b), len(qs))
			if err != nil {
				t.Fatalf("outfmt %d batch %d: %v", code, i, err)
			}
			for _, p := range pieces {
				got = append(got, p...)
			}
			first += len(b)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("outfmt %d: %s", code, refsearch.Diff(got, want))
		}
	}
}
