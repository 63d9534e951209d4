package cache

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/internal/storage/replica"
)

// replicaOf copies the fixture's database into a second store.
func (f *fixture) replicaOf(t *testing.T) *objstore.Dir {
	t.Helper()
	st, err := objstore.NewDir(filepath.Join(t.TempDir(), "replica"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range f.m.Shards {
		for _, file := range s.Files {
			rc, err := f.db.Get(context.Background(), file.Name)
			if err != nil {
				t.Fatal(err)
			}
			err = st.Put(context.Background(), file.Name, rc, file.Size)
			rc.Close()
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	return st
}

// replicated is a cache over the fixture that reads through a Set of
// the given stores, in pieces of 256 bytes (four per file).
func (f *fixture) replicated(t *testing.T, stores ...objstore.Store) (*Cache, *replica.Set) {
	t.Helper()
	var srcs []replica.Source
	for i, st := range stores {
		srcs = append(srcs, replica.Source{Name: string(rune('a' + i)), Store: st})
	}
	set := replica.New(srcs, replica.Options{PieceSize: 256})
	c := f.cache(t, nil, 0)
	c.UseReplicas(set)
	return c, set
}

// TestReplicas: shards come in pieces from both replicas, checksummed
// and counted as before.
func TestReplicas(t *testing.T) {
	f := newFixture(t, 3)
	c, set := f.replicated(t, f.db, f.replicaOf(t))
	use(t, c, 0, 1, 2, 1)
	wantCached(t, c, 0, 1, 2)
	if got, want := c.Stats(), (Stats{Hits: 1, Misses: 3, BytesFetched: 3 * shardSize}); got != want {
		t.Errorf("Stats = %+v, want %+v", got, want)
	}
	var bytes int64
	for _, st := range set.Stats() {
		if st.Pieces == 0 {
			t.Errorf("replica %s served no piece: %s", st.Name, set)
		}
		bytes += st.Bytes
	}
	if bytes != 3*shardSize {
		t.Errorf("replicas served %d bytes, want %d", bytes, 3*shardSize)
	}
}

// TestReplicaMissingFiles: a replica without the files costs no failed
// Acquire: the other serves them.
func TestReplicaMissingFiles(t *testing.T) {
	f := newFixture(t, 2)
	empty, err := objstore.NewDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c, set := f.replicated(t, empty, f.db)
	use(t, c, 0, 1)
	if st := set.Stats(); st[0].Errors == 0 || st[1].Bytes != 2*shardSize {
		t.Errorf("stats %s: want the empty replica failed, the other serving all", set)
	}
}

// TestReplicasCorrupt: bytes that differ from the manifest on every
// replica fail the Acquire after one refetch, as from one store.
func TestReplicasCorrupt(t *testing.T) {
	f := newFixture(t, 1)
	name := f.m.Shards[0].Files[0].Name
	bad := strings.Repeat("x", fileSize)
	other := f.replicaOf(t)
	for _, st := range []objstore.Store{f.db, other} {
		if err := st.Put(context.Background(), name, strings.NewReader(bad), fileSize); err != nil {
			t.Fatal(err)
		}
	}
	c, _ := f.replicated(t, f.db, other)
	if _, err := c.Acquire(context.Background(), 0); err == nil || !strings.Contains(err.Error(), name) {
		t.Fatalf("Acquire with corrupt replicas: %v", err)
	}
	if got := c.Stats().Refetches; got != 1 {
		t.Errorf("Refetches = %d, want 1", got)
	}
}

// TestReplicaDiffers: a replica whose copy of a file differs spoils the
// pieces it serves; the refetch from the store given to New heals it.
func TestReplicaDiffers(t *testing.T) {
	f := newFixture(t, 1)
	other := f.replicaOf(t)
	name := f.m.Shards[0].Files[0].Name
	if err := other.Put(context.Background(), name, strings.NewReader(strings.Repeat("x", fileSize)), fileSize); err != nil {
		t.Fatal(err)
	}
	c, set := f.replicated(t, f.db, other)
	acquire(t, c, 0)
	if got := c.Stats().Refetches; got != 1 || set.Stats()[1].Pieces == 0 {
		t.Errorf("Refetches = %d, stats %s: want the differing replica read, then one refetch", got, set)
	}
}
