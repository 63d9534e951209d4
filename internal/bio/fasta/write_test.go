package fasta

import (
	"bytes"
	"strings"
	"testing"
)

func TestWriteRoundTrip(t *testing.T) {
	in := []*Record{
		{ID: "a", Defline: "a some description", Seq: []byte(strings.Repeat("ACGT", 41))},
		{ID: "b", Defline: "b", Seq: []byte(strings.Repeat("N", LineWidth))},
		{ID: "c", Defline: "c", Seq: []byte("g")},
	}
	var buf bytes.Buffer
	if err := Write(&buf, in...); err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
		if len(line) > LineWidth && line[0] != '>' {
			t.Errorf("line %d has %d letters", i+1, len(line))
		}
	}
	out, err := ReadAll(&buf, "w.fa", Nucleotide)
	if err != nil {
		t.Fatal(err)
	}
	for i := range in {
		if out[i].Defline != in[i].Defline || !bytes.Equal(out[i].Seq, in[i].Seq) {
			t.Errorf("record %d: got %q/%q, want %q/%q", i, out[i].Defline, out[i].Seq, in[i].Defline, in[i].Seq)
		}
	}
}
