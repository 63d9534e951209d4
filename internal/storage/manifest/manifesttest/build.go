// Package manifesttest writes made-up database builds for tests of what
// reads or copies them, without makeblastdb.
package manifesttest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// Build writes a two-shard build of made-up files (one empty, one
// larger than a read buffer) and its manifests into st.
func Build(t testing.TB, st objstore.Store) *manifest.Manifest {
	t.Helper()
	ctx := context.Background()
	m := &manifest.Manifest{SchemaVersion: manifest.SchemaVersion, Name: "db", Type: manifest.Protein, BlastVersion: "2.12.0+",
		Sequences: 3, Letters: 30, Build: "builds/b1", Source: manifest.Source{Name: "db.fa", SHA256: "ab", Size: 40}}
	files, err := m.Files(st)
	if err != nil {
		t.Fatal(err)
	}
	contents := map[string][]byte{
		"shard-000.pal": []byte("TITLE db shard 0\n"), "shard-000.db.pin": bytes.Repeat([]byte("p"), 100_000),
		"shard-001.pal": []byte("TITLE db shard 1\n"), "shard-001.db.pin": {},
	}
	file := func(name string) manifest.File {
		data := contents[name]
		if err := files.Put(ctx, name, bytes.NewReader(data), int64(len(data))); err != nil {
			t.Fatal(err)
		}
		return manifest.File{Name: name, Size: int64(len(data)), SHA256: SHA256(data)}
	}
	for i, seqs := range []int64{2, 1} {
		name := fmt.Sprintf("shard-%03d", i)
		m.Shards = append(m.Shards, manifest.Shard{ID: i, Name: name, DBName: name + ".db", IDsFile: name + ".ids",
			Sequences: seqs, Letters: 15, Files: []manifest.File{file(name + ".db.pin"), file(name + ".pal")}})
	}
	if err := manifest.Save(ctx, st, m); err != nil {
		t.Fatal(err)
	}
	return m
}

// SHA256 is data's SHA-256 in hex, as manifests write it.
func SHA256(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}
