package queries

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/bio/fasta"
)

// The stats are of the object as stored (gzip or not): what a plan
// records and what the engine checks against it.
func TestReadStats(t *testing.T) {
	text := ">q1 first\nACGTACGT\nAC\n>q2\nGGGG\n"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(text))
	zw.Close()
	dir := t.TempDir()
	for name, data := range map[string][]byte{"q.fa": []byte(text), "q.fa.gz": gz.Bytes()} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		var ids []string
		st, err := Read(context.Background(), path, blast.Blastn, func(r *fasta.Record) error {
			ids = append(ids, r.ID)
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sum := sha256.Sum256(data)
		if st.SHA256 != hex.EncodeToString(sum[:]) || st.Size != int64(len(data)) || st.Count != 2 || st.Letters != 14 ||
			strings.Join(ids, ",") != "q1,q2" {
			t.Errorf("%s: stats %+v, ids %v", name, st, ids)
		}
	}
}

func TestReadErrorsNameTheRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q.fa")
	if err := os.WriteFile(path, []byte(">q1\nACGT\n>q2\nACJT\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Read(context.Background(), path, blast.Blastn, func(*fasta.Record) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "--queries") || !strings.Contains(err.Error(), `"q2"`) || !strings.Contains(err.Error(), "q.fa:4") {
		t.Errorf("error %v does not name --queries, the record and the line", err)
	}
	empty := filepath.Join(t.TempDir(), "e.fa")
	os.WriteFile(empty, nil, 0o644)
	if _, err := Read(context.Background(), empty, blast.Blastn, func(*fasta.Record) error { return nil }); err == nil || !strings.Contains(err.Error(), "no sequences") {
		t.Errorf("empty file: %v", err)
	}
}
