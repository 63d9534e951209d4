package cache

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/storage/manifest"
)

// addCommon gives the fixture's database a common file (a taxdb, say).
func (f *fixture) addCommon(t *testing.T, name string, data []byte) {
	t.Helper()
	if err := f.db.Put(context.Background(), name, bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	f.m.Common = append(f.m.Common, manifest.File{Name: name, Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])})
}

// TestCommonFiles: the database's common files come with the first shard,
// checksummed, stay when shards are evicted, and take no shard's room.
func TestCommonFiles(t *testing.T) {
	f := newFixture(t, 3)
	f.addCommon(t, "taxdb.bti", []byte("index"))
	c, err := New(f.dir, 2*shardSize+5, f.db, f.m)
	if err != nil {
		t.Fatal(err)
	}
	use(t, c, 0, 1, 2) // two fit: shard 0 is evicted
	wantCached(t, c, 1, 2)
	if data, err := os.ReadFile(filepath.Join(f.dir, "taxdb.bti")); err != nil || string(data) != "index" {
		t.Fatalf("common file after evictions: %q, %v", data, err)
	}
	if got := c.Stats().BytesFetched; got != 3*shardSize+5 {
		t.Errorf("fetched %d bytes, want three shards and the common file once (%d)", got, 3*shardSize+5)
	}
}

// TestCommonFileCorrupt: a common file whose stored bytes differ from the
// manifest's checksum fails the Acquire, naming it, and is not kept.
func TestCommonFileCorrupt(t *testing.T) {
	f := newFixture(t, 1)
	f.addCommon(t, "taxdb.btd", []byte("names"))
	if err := f.db.Put(context.Background(), "taxdb.btd", strings.NewReader("NAMES"), 5); err != nil {
		t.Fatal(err)
	}
	c := f.cache(t, nil, 0)
	if _, err := c.Acquire(context.Background(), 0); err == nil || !strings.Contains(err.Error(), "taxdb.btd") {
		t.Fatalf("Acquire with a corrupt common file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "taxdb.btd")); !os.IsNotExist(err) {
		t.Errorf("corrupt common file kept: %v", err)
	}
	if _, err := New(f.dir, 3, f.db, f.m); err == nil {
		t.Error("a cache smaller than the common files was accepted")
	}
}
