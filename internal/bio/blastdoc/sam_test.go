package blastdoc_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	. "github.com/blastfleet/blastfleet/internal/bio/blastdoc"
	"github.com/blastfleet/blastfleet/test/support/refsearch"
)

// TestSAMOfBatches: BLAST+'s SAM of a query file searched in batches is
// the header SAMHeader makes from the batches' pieces (each batch
// searched by itself, its queries renumbered as in the run), with the
// run's @PG line, followed by the pieces: queries without hits (the first,
// one in the second batch) have no @SQ line; a file of queries without
// hits prints nothing.
func TestSAMOfBatches(t *testing.T) {
	r, dir, db := familyDB(t, 9, 0.03)
	none := func() string { return family(r, "ACGT", 1, 1, 300, 0, "none")[0] }
	// Queries: 300 letters of database sequences, mutated.
	var qs []string
	for i := 0; i < 8; i++ {
		_, seq, _ := strings.Cut(db[i*3], "\n")
		q := []byte(seq[50:350])
		for j := range q {
			if r.Float64() < 0.04 {
				q[j] = "ACGT"[r.Intn(4)]
			}
		}
		qs = append(qs, ">q"+strconv.Itoa(i)+"\n"+string(q)+"\n")
	}
	// Batches of 1000 letters: 4, 4 and 2 queries.
	qs = append([]string{none()}, append(qs[:5], append([]string{none()}, qs[5:]...)...)...)
	batches := [][]string{qs[:4], qs[4:8], qs[8:]}
	write := func(name string, recs []string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(recs, "")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("all.fa", qs)
	lengths := make([]int, len(qs))
	for i, q := range qs {
		_, seq, _ := strings.Cut(q, "\n")
		lengths[i] = len(strings.TrimSpace(seq))
	}
	argv := func(query string) []string {
		return []string{"blastn", "-db", "mydb", "-query", query, "-outfmt", "17", "-max_target_seqs", "5"}
	}
	blast := func(query string) []byte {
		return run(t, dir, append([]string{"env", "BATCH_SIZE=1000"}, argv(query)...)...)
	}
	want := blast("all.fa")
	if !bytes.Contains(want, []byte("\tQuery_10\t")) || bytes.Contains(want, []byte("\tQuery_1\t")) || bytes.Contains(want, []byte("\tQuery_7\t")) {
		t.Fatalf("the data do not have hits for the last query and none for the first and seventh:\n%s", want)
	}
	var body []byte
	first := 1
	for i, b := range batches {
		name := "b" + strconv.Itoa(i) + ".fa"
		write(name, b)
		pieces, err := SAMPieces(blast(name), first, len(b))
		if err != nil {
			t.Fatalf("batch %d: %v", i, err)
		}
		for k, p := range pieces {
			if (len(p) == 0) != (first+k == 1 || first+k == 7) {
				t.Errorf("query %d: a piece of %d bytes", first+k, len(p))
			}
			body = append(body, p...)
		}
		first += len(b)
	}
	version := run(t, dir, "blastn", "-version")
	_, v, _ := strings.Cut(strings.SplitN(string(version), "\n", 2)[0], ": ")
	header, err := SAMHeader(bytes.NewReader(body), lengths, SAMProgram(v, argv("all.fa")))
	if err != nil {
		t.Fatal(err)
	}
	if got := append(header, body...); !bytes.Equal(got, want) {
		t.Fatalf("%s", refsearch.Diff(got, want))
	}

	write("none.fa", []string{none(), none()})
	nohits := blast("none.fa")
	pieces, err := SAMPieces(nohits, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	header, err = SAMHeader(bytes.NewReader(bytes.Join(pieces, nil)), []int{300, 300}, SAMProgram(v, argv("none.fa")))
	if err != nil || len(header)+len(nohits) > 0 {
		t.Fatalf("queries without hits: header %q (%v), BLAST+ printed %q", header, err, nohits)
	}
}

// TestSAMRefusesWhatBLASTDoesNotPrint: lines of queries out of order, a
// query past the run's, or a reference name BLAST does not give a query
// are errors, not a wrong header.
func TestSAMRefusesWhatBLASTDoesNotPrint(t *testing.T) {
	line := func(q string) string { return "s1\t0\t" + q + "\t1\t255\t10M\t*\t0\t0\t*\t*\tAS:i:10\n" }
	for _, c := range []struct{ name, body string }{
		{"out of order", line("Query_2") + line("Query_1")},
		{"past the run", line("Query_3")},
		{"not numbered", line("query0001")},
		{"too few fields", "s1\t0\n"},
	} {
		if _, err := SAMHeader(strings.NewReader(c.body), []int{10, 10}, nil); err == nil {
			t.Errorf("SAMHeader of %s: no error", c.name)
		}
		if _, err := SAMPieces([]byte("@HD\tVN:1.2\n"+c.body), 1, 2); err == nil && c.name != "past the run" {
			t.Errorf("SAMPieces of %s: no error", c.name)
		}
	}
	if _, err := SAMPieces([]byte(line("Query_3")), 5, 2); err == nil {
		t.Error("SAMPieces of a query past its batch: no error")
	}
	h, err := SAMHeader(strings.NewReader(line("Query_2")+line("Query_2")), []int{7, 9}, []byte("@PG\n"))
	if want := "@HD\tVN:1.2\tSO:coordinate\tGO:reference\n@SQ\tSN:Query_2\tLN:9\n@PG\n"; err != nil || string(h) != want {
		t.Errorf("SAMHeader = %q, %v; want %q", h, err, want)
	}
}
