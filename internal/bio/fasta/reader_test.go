package fasta

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"strings"
	"testing"
)

func gz(t testing.TB, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestReadAllValid(t *testing.T) {
	in := "\n>a first one\r\nACGT\r\nac gt\t\r\n\r\n>b\nNNRY-\n>lcl|c x y\nU\n"
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"plain.fa", []byte(in)},
		{"gzipped.fa.gz", gz(t, in)},
		{"gzip-without-suffix.fa", gz(t, in)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recs, err := ReadAll(bytes.NewReader(tc.data), tc.name, Nucleotide)
			if err != nil {
				t.Fatal(err)
			}
			want := []Record{
				{ID: "a", Defline: "a first one", Seq: []byte("ACGTacgt"), Ordinal: 0, Line: 2},
				{ID: "b", Defline: "b", Seq: []byte("NNRY-"), Ordinal: 1, Line: 6},
				{ID: "lcl|c", Defline: "lcl|c x y", Seq: []byte("U"), Ordinal: 2, Line: 8},
			}
			if len(recs) != len(want) {
				t.Fatalf("got %d records, want %d", len(recs), len(want))
			}
			for i, w := range want {
				g := recs[i]
				if g.ID != w.ID || g.Defline != w.Defline || string(g.Seq) != string(w.Seq) ||
					g.Ordinal != w.Ordinal || g.Line != w.Line {
					t.Errorf("record %d = %+v (seq %s), want %+v (seq %s)", i, g, g.Seq, w, w.Seq)
				}
			}
		})
	}
}

func TestProteinAlphabet(t *testing.T) {
	recs, err := ReadAll(strings.NewReader(">p\nABCDEFGHIKLMNPQRSTUVWXYZ*-\nmkv\n"), "p.fa", Protein)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(recs[0].Seq); got != "ABCDEFGHIKLMNPQRSTUVWXYZ*-mkv" {
		t.Errorf("seq = %q", got)
	}
}

func TestReaderErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		file  string
		alpha Alphabet
		data  []byte
		want  []string // substrings of the error
	}{
		{"empty file", "e.fa", Nucleotide, nil, []string{"e.fa: no sequences"}},
		{"only blank lines", "e.fa", Nucleotide, []byte("\n \n\r\n"), []string{"e.fa: no sequences"}},
		{"data before header", "x.fa", Nucleotide, []byte("\nACGT\n>a\nACGT\n"), []string{"x.fa:2:", "no header"}},
		{"empty sequence last", "x.fa", Nucleotide, []byte(">a\nACGT\n>b d\n"), []string{"x.fa:3:", `record "b"`, "empty sequence"}},
		{"empty sequence middle", "x.fa", Nucleotide, []byte(">a\n\n>b\nAC\n"), []string{"x.fa:1:", `record "a"`, "empty sequence"}},
		{"empty id", "x.fa", Nucleotide, []byte(">a\nAC\n>\nAC\n"), []string{"x.fa:3:", "empty sequence id"}},
		{"id after space", "x.fa", Nucleotide, []byte("> a\nAC\n"), []string{"x.fa:1:", "empty sequence id"}},
		{"bad nucleotide", "x.fa", Nucleotide, []byte(">a\nAC\n>b\nACGT\nACXT\n"), []string{"x.fa:5:", `record "b"`, `'X'`, "column 3", "header at line 3", "nucleotide"}},
		{"protein J", "p.fa", Protein, []byte(">a\nMKJ\n"), []string{"p.fa:2:", `record "a"`, `'J'`, "protein"}},
		{"protein digit", "p.fa", Protein, []byte(">a\nMK1\n"), []string{"p.fa:2:", `'1'`}},
		{"nucleotide star", "x.fa", Nucleotide, []byte(">a\nAC*\n"), []string{"x.fa:2:", `'*'`}},
		{"duplicate id", "x.fa", Nucleotide, []byte(">a\nAC\n>b\nAC\n>a other\nAC\n"), []string{"x.fa:5:", `record "a"`, "duplicate id", "line 1"}},
		{"duplicate id case", "x.fa", Nucleotide, []byte(">Seq1\nAC\n>seq1\nAC\n"), []string{"x.fa:3:", `record "seq1"`, "duplicate", "line 1"}},
		{"duplicate lcl form", "x.fa", Nucleotide, []byte(">s\nAC\n>lcl|s\nAC\n"), []string{"x.fa:3:", "duplicate", "line 1"}},
		{"gz name, plain data", "x.fa.gz", Nucleotide, []byte(">a\nAC\n"), []string{"x.fa.gz: not a gzip stream"}},
		{"empty gz name", "x.fa.gz", Nucleotide, nil, []string{"x.fa.gz: not a gzip stream"}},
		{"gzip of empty", "x.fa.gz", Nucleotide, gz(t, ""), []string{"x.fa.gz: no sequences"}},
		{"bad alphabet", "x.fa", Alphabet(0), []byte(">a\nAC\n"), []string{"unknown alphabet"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadAll(bytes.NewReader(tc.data), tc.file, tc.alpha)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestTruncatedGzip(t *testing.T) {
	data := gz(t, ">a\n"+strings.Repeat("ACGTTGCA", 20000)+"\n")
	for _, cut := range []int{len(data) - 4, len(data) / 2, 12} {
		_, err := ReadAll(bytes.NewReader(data[:cut]), "t.fa.gz", Nucleotide)
		if err == nil || !strings.Contains(err.Error(), "t.fa.gz") || !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("cut at %d of %d: err = %v, want an unexpected EOF naming the file", cut, len(data), err)
		}
	}
}

func TestLongLines(t *testing.T) {
	seq := strings.Repeat("ACGT", 100000) // longer than the read buffer
	defl := "long " + strings.Repeat("d", 200000)
	recs, err := ReadAll(strings.NewReader(">"+defl+"\r\n"+seq+"\r\n>b\nA"), "l.fa", Nucleotide)
	if err != nil {
		t.Fatal(err)
	}
	if recs[0].Defline != defl || string(recs[0].Seq) != seq || string(recs[1].Seq) != "A" || recs[1].Line != 3 {
		t.Errorf("long lines misread: defline %d, seq %d, next %+v", len(recs[0].Defline), len(recs[0].Seq), recs[1])
	}
}

func TestErrorIsSticky(t *testing.T) {
	rd, err := NewReader(strings.NewReader(">a\nAC\n>a\nAC\n"), "s.fa", Nucleotide)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rd.Next(); err != nil {
		t.Fatal(err)
	}
	_, err1 := rd.Next()
	_, err2 := rd.Next()
	var fe *Error
	if err1 == nil || err1 != err2 || !errors.As(err1, &fe) || fe.Line != 3 || fe.ID != "a" {
		t.Errorf("errors %v, %v; want the same *Error at line 3", err1, err2)
	}
}

func TestEOFRepeats(t *testing.T) {
	rd, err := NewReader(strings.NewReader(">a\nAC"), "s.fa", Nucleotide)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rd.Next(); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := rd.Next(); err != io.EOF {
			t.Fatalf("err = %v, want io.EOF", err)
		}
	}
}
