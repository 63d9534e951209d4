package devstack

import (
	"bytes"
	"compress/gzip"
	"io"
	"strings"
	"testing"
)

func gunzip(t *testing.T, b []byte) string {
	t.Helper()
	r, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// The sample inputs are FASTA of the sizes config/samples' comments
// give, the same bytes every time (a database rebuilt after dev down
// and up matches what campaigns searched).
func TestSampleInputs(t *testing.T) {
	db, q := SampleInputs()
	db2, q2 := SampleInputs()
	if !bytes.Equal(db, db2) || !bytes.Equal(q, q2) {
		t.Fatal("sample inputs differ between two calls")
	}
	dbText, qText := gunzip(t, db), gunzip(t, q)
	if n := strings.Count(dbText, ">"); n != sampleProteins {
		t.Errorf("%d database sequences, want %d", n, sampleProteins)
	}
	if n := strings.Count(qText, ">"); n != sampleQueries {
		t.Errorf("%d queries, want %d", n, sampleQueries)
	}
	for _, text := range []string{dbText, qText} {
		for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			if line == "" || len(line) > 60 && line[0] != '>' {
				t.Fatalf("line %d %q: not FASTA wrapped at 60", i+1, line)
			}
		}
	}
}
