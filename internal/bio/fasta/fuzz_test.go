package fasta

import (
	"bytes"
	"io"
	"testing"
)

// FuzzReader checks that no input makes the reader panic or loop, and that
// whatever it accepts survives a Write/ReadAll round trip.
func FuzzReader(f *testing.F) {
	for _, s := range []string{
		"", ">a\nACGT\n", ">a\r\nAC GT\r\n>b\nN\n", "ACGT\n>a\nA", ">\nA", ">a\n>b\nA",
		">a\nAC\n>A\nAC", ">a b\nXYZ\n", ">a\nAC*-\n",
	} {
		f.Add([]byte(s), false)
		f.Add(gz(f, s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, protein bool) {
		a := Nucleotide
		if protein {
			a = Protein
		}
		rd, err := NewReader(bytes.NewReader(data), "fuzz.fa", a)
		if err != nil {
			return
		}
		var recs []*Record
		for {
			rec, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				if err.Error() == "" {
					t.Fatal("empty error message")
				}
				return
			}
			if rec.Ordinal != len(recs) || rec.ID == "" || len(rec.Seq) == 0 {
				t.Fatalf("bad record %+v", rec)
			}
			recs = append(recs, rec)
		}
		var buf bytes.Buffer
		if err := Write(&buf, recs...); err != nil {
			t.Fatal(err)
		}
		back, err := ReadAll(&buf, "again.fa", a)
		if err != nil {
			t.Fatalf("re-reading written records: %v", err)
		}
		if len(back) != len(recs) {
			t.Fatalf("round trip: %d records, want %d", len(back), len(recs))
		}
		for i := range recs {
			if !bytes.Equal(back[i].Seq, recs[i].Seq) || back[i].ID != recs[i].ID {
				t.Fatalf("round trip record %d differs", i)
			}
		}
	})
}
