package shard

import (
	"context"
	"io"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// ninDate matches the creation date makeblastdb writes into a volume's
// index file (.nin/.pin) with its length prefix and padding: the one part
// of a BLAST DB that differs between builds of the same sequences.
var ninDate = regexp.MustCompile(`\x00\x00\x00[\x08-\x40][A-Z][a-z]{2} [ 0-9]?[0-9], [0-9]{4} +[0-9]{1,2}:[0-9]{2} [AP]M\x00*`)

func isIndexFile(name string) bool {
	return strings.HasSuffix(name, ".nin") || strings.HasSuffix(name, ".pin")
}

// maskDates copies m with the sizes and checksums of index files, and the
// dates recorded from them, blanked.
func maskDates(m *manifest.Manifest) *manifest.Manifest {
	c := *m
	c.Shards = make([]manifest.Shard, len(m.Shards))
	for i, s := range m.Shards {
		s.Files = append([]manifest.File(nil), s.Files...)
		for k, f := range s.Files {
			if isIndexFile(f.Name) {
				s.Files[k].Size, s.Files[k].SHA256 = 0, "dated"
			}
		}
		s.Date = "dated"
		c.Shards[i] = s
	}
	return &c
}

// requireSameDatabase fails unless got (in gotSt) is want (in wantSt):
// equal manifests, byte for byte, except the index files, whose contents
// must be equal apart from makeblastdb's creation date.
func requireSameDatabase(t *testing.T, wantSt objstore.Store, want *manifest.Manifest, gotSt objstore.Store, got *manifest.Manifest) {
	t.Helper()
	if !reflect.DeepEqual(maskDates(got), maskDates(want)) {
		t.Fatalf("manifests differ beyond index file dates:\ngot  %+v\nwant %+v", got, want)
	}
	indexFiles := 0
	wantSt, gotSt = mustFiles(t, wantSt, want), mustFiles(t, gotSt, got)
	for _, s := range want.Shards {
		for _, f := range s.Files {
			if !isIndexFile(f.Name) {
				continue
			}
			indexFiles++
			w, g := readObject(t, wantSt, f.Name), readObject(t, gotSt, f.Name)
			if !ninDate.Match(w) {
				t.Fatalf("%s: no creation date found in %q", f.Name, w)
			}
			if wn, gn := ninDate.ReplaceAll(w, nil), ninDate.ReplaceAll(g, nil); string(wn) != string(gn) {
				t.Errorf("%s differs beyond its creation date:\n%q\n%q", f.Name, w, g)
			}
		}
	}
	if indexFiles != len(want.Shards) {
		t.Errorf("%d index files in %d shards", indexFiles, len(want.Shards))
	}
}

func mustFiles(t *testing.T, st objstore.Store, m *manifest.Manifest) objstore.Store {
	t.Helper()
	files, err := m.Files(st)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func readObject(t *testing.T, st objstore.Store, key string) []byte {
	t.Helper()
	rc, err := st.Get(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestNinDate(t *testing.T) {
	// Two dates of different lengths, as in a .nin: length prefix, text,
	// padding, then the volume's counts.
	a := []byte("\x00\x00\x00\x0bs.db.ndb\x00\x00\x00\x17Nov 22, 2026  5:13 AM\x00\x00\x00\x00\x00\x02\x26")
	b := []byte("\x00\x00\x00\x0bs.db.ndb\x00\x00\x00\x16Dec 1, 2026 11:02 PM\x00\x00\x00\x00\x00\x00\x00\x02\x26")
	c := []byte("\x00\x00\x00\x0bs.db.ndb\x00\x00\x00\x16Dec 1, 2026 11:02 PM\x00\x00\x00\x00\x00\x00\x00\x03\x26")
	na, nb, nc := ninDate.ReplaceAll(a, nil), ninDate.ReplaceAll(b, nil), ninDate.ReplaceAll(c, nil)
	if string(na) != string(nb) {
		t.Errorf("dates not masked: %q vs %q", na, nb)
	}
	if string(nb) == string(nc) {
		t.Errorf("masking hides a difference after the date")
	}
}
