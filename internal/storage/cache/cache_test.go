package cache

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// fixture is a database of n shards, each with two files of fileSize bytes,
// in a directory store.
type fixture struct {
	db  *objstore.Dir
	m   *manifest.Manifest
	dir string // cache directory
}

const fileSize = 1000

func newFixture(t *testing.T, n int) *fixture {
	t.Helper()
	db, err := objstore.NewDir(filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	m := &manifest.Manifest{SchemaVersion: manifest.SchemaVersion, Name: "test", Type: manifest.Nucleotide}
	for i := 0; i < n; i++ {
		s := manifest.Shard{ID: i, Name: fmt.Sprintf("shard-%03d", i), DBName: fmt.Sprintf("shard-%03d.db", i)}
		for _, ext := range []string{".db.nsq", ".nal"} {
			data := make([]byte, fileSize)
			rand.Read(data)
			name := s.Name + ext
			if err := db.Put(context.Background(), name, bytes.NewReader(data), fileSize); err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(data)
			s.Files = append(s.Files, manifest.File{Name: name, Size: fileSize, SHA256: hex.EncodeToString(sum[:])})
		}
		m.Shards = append(m.Shards, s)
	}
	return &fixture{db: db, m: m, dir: filepath.Join(t.TempDir(), "cache")}
}

const shardSize = 2 * fileSize

func (f *fixture) cache(t *testing.T, st objstore.Store, maxShards int) *Cache {
	t.Helper()
	if st == nil {
		st = f.db
	}
	c, err := New(f.dir, int64(maxShards)*shardSize, st, f.m)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func acquire(t *testing.T, c *Cache, id int) {
	t.Helper()
	if _, err := c.Acquire(context.Background(), id); err != nil {
		t.Fatalf("Acquire(%d): %v", id, err)
	}
}

// use acquires and releases, like a worker running one task.
func use(t *testing.T, c *Cache, ids ...int) {
	t.Helper()
	for _, id := range ids {
		acquire(t, c, id)
		c.Release(id)
	}
}

func wantCached(t *testing.T, c *Cache, want ...int) {
	t.Helper()
	if got := c.Cached(); !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
		t.Errorf("Cached() = %v, want %v", got, want)
	}
}

func TestHitsAndMisses(t *testing.T) {
	f := newFixture(t, 3)
	c := f.cache(t, nil, 0)
	dir, err := c.Acquire(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range f.m.Shards[1].Files {
		if _, err := os.Stat(filepath.Join(dir, file.Name)); err != nil {
			t.Errorf("shard file not in the returned directory: %v", err)
		}
	}
	c.Release(1)
	use(t, c, 1, 0, 1)
	want := Stats{Hits: 2, Misses: 2, BytesFetched: 2 * shardSize}
	if got := c.Stats(); got != want {
		t.Errorf("Stats = %+v, want %+v", got, want)
	}
	wantCached(t, c, 0, 1)
	if _, err := c.Acquire(context.Background(), 3); err == nil {
		t.Error("Acquire of a shard not in the manifest succeeded")
	}
}

func TestLRUEviction(t *testing.T) {
	f := newFixture(t, 4)
	c := f.cache(t, nil, 2)
	use(t, c, 0, 1, 0) // 1 is now least recently used
	use(t, c, 2)
	wantCached(t, c, 0, 2)
	use(t, c, 3) // evicts 0: used before 2
	wantCached(t, c, 2, 3)
	if got := c.Stats().Evictions; got != 2 {
		t.Errorf("Evictions = %d, want 2", got)
	}
	for _, file := range append(f.m.Shards[0].Files, f.m.Shards[1].Files...) {
		if _, err := os.Stat(filepath.Join(f.dir, file.Name)); !os.IsNotExist(err) {
			t.Errorf("evicted file %s still on disk (%v)", file.Name, err)
		}
	}
	if c.Used() > 2*shardSize {
		t.Errorf("Used = %d over the limit", c.Used())
	}
}

func TestPinnedNotEvicted(t *testing.T) {
	f := newFixture(t, 3)
	c := f.cache(t, nil, 2)
	acquire(t, c, 0) // pinned, and the oldest
	use(t, c, 1)
	use(t, c, 2) // must evict 1, not the older pinned 0
	wantCached(t, c, 0, 2)
	acquire(t, c, 2)
	_, err := c.Acquire(context.Background(), 1)
	if !errors.Is(err, ErrNoRoom) {
		t.Fatalf("Acquire with every shard pinned = %v, want ErrNoRoom", err)
	}
	c.Release(2)
	use(t, c, 1)
	wantCached(t, c, 0, 1)
}

func TestShardLargerThanCache(t *testing.T) {
	f := newFixture(t, 1)
	c, err := New(f.dir, shardSize-1, f.db, f.m)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Acquire(context.Background(), 0)
	if err == nil || errors.Is(err, ErrNoRoom) || !strings.Contains(err.Error(), "shard-000") {
		t.Errorf("Acquire of an oversized shard = %v, want a clear error naming it", err)
	}
}

// TestObjectLargerThanManifest: a file whose object is larger than the
// manifest says (a manifest lying to fit the cache) is refused after
// reading one byte past the manifest's size, not copied whole to disk.
func TestObjectLargerThanManifest(t *testing.T) {
	f := newFixture(t, 1)
	file := &f.m.Shards[0].Files[0]
	big := bytes.Repeat([]byte("x"), 1<<20)
	if err := f.db.Put(context.Background(), file.Name, bytes.NewReader(big), int64(len(big))); err != nil {
		t.Fatal(err)
	}
	c := f.cache(t, f.db, 0)
	_, err := c.Acquire(context.Background(), 0)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("larger than the manifest's %d bytes", file.Size)) {
		t.Errorf("Acquire = %v, want a refusal naming the manifest's size", err)
	}
	if got := c.Stats().BytesFetched; got > file.Size+1 {
		t.Errorf("fetched %d bytes of a file the manifest says has %d", got, file.Size)
	}
}

// corrupting flips a byte in the first `times` reads of key.
type corrupting struct {
	objstore.Store
	key   string
	mu    sync.Mutex
	times int
	gets  int
}

func (c *corrupting) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	rc, err := c.Store.Get(ctx, key)
	if err != nil || key != c.key {
		return rc, err
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gets++
	if c.times > 0 {
		c.times--
		data[len(data)/2] ^= 0xff
	}
	return io.NopCloser(bytes.NewReader(data)), nil
}

func TestCorruptFetchRetriedOnce(t *testing.T) {
	f := newFixture(t, 1)
	bad := &corrupting{Store: f.db, key: f.m.Shards[0].Files[1].Name, times: 1}
	c := f.cache(t, bad, 0)
	acquire(t, c, 0)
	if s := c.Stats(); s.Refetches != 1 || s.Misses != 1 {
		t.Errorf("Stats = %+v, want 1 refetch and 1 miss", s)
	}
	if bad.gets != 2 {
		t.Errorf("corrupted file fetched %d times, want 2", bad.gets)
	}
}

func TestCorruptTwiceFails(t *testing.T) {
	f := newFixture(t, 1)
	file := f.m.Shards[0].Files[1]
	bad := &corrupting{Store: f.db, key: file.Name, times: 2}
	c := f.cache(t, bad, 0)
	_, err := c.Acquire(context.Background(), 0)
	if err == nil {
		t.Fatal("Acquire of a shard corrupted twice succeeded")
	}
	for _, want := range []string{"shard-000", file.Name, file.SHA256} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
	wantCached(t, c)
	ents, _ := os.ReadDir(f.dir)
	if len(ents) != 0 {
		t.Errorf("a failed shard left %d files in the cache", len(ents))
	}
	if c.Used() != 0 {
		t.Errorf("Used = %d after a failed fetch", c.Used())
	}
	// The store heals: the next Acquire fetches again and succeeds.
	acquire(t, c, 0)
}

func TestWarmRestart(t *testing.T) {
	f := newFixture(t, 3)
	c := f.cache(t, nil, 0)
	use(t, c, 0, 1, 2)
	// Damage shard 1 on disk (same size), cut shard 2 short, and leave a
	// half-fetched temp file, as a crash would.
	p1 := filepath.Join(f.dir, f.m.Shards[1].Files[0].Name)
	data, _ := os.ReadFile(p1)
	data[0] ^= 1
	os.WriteFile(p1, data, 0o644)
	os.Truncate(filepath.Join(f.dir, f.m.Shards[2].Files[0].Name), 10)
	os.WriteFile(filepath.Join(f.dir, tmpPrefix+"x"), []byte("half"), 0o644)

	c = f.cache(t, nil, 0)
	wantCached(t, c, 0, 1)
	if _, err := os.Stat(filepath.Join(f.dir, tmpPrefix+"x")); !os.IsNotExist(err) {
		t.Error("New left a half-fetched temp file")
	}
	use(t, c, 0, 1, 2)
	want := Stats{Hits: 1, Misses: 2, BytesFetched: fileSize + shardSize}
	if got := c.Stats(); got != want {
		t.Errorf("Stats after restart = %+v, want %+v (0 verified in place; 1 and 2 refetched)", got, want)
	}
}

func TestRestartWithSmallerLimit(t *testing.T) {
	f := newFixture(t, 3)
	use(t, f.cache(t, nil, 0), 0, 1, 2)
	c := f.cache(t, nil, 2)
	wantCached(t, c, 0, 1)
	if c.Used() != 2*shardSize {
		t.Errorf("Used = %d, want %d", c.Used(), 2*shardSize)
	}
}

func TestConcurrentAcquire(t *testing.T) {
	f := newFixture(t, 6)
	c := f.cache(t, nil, 4)
	// Many goroutines on one shard share a single fetch.
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Acquire(context.Background(), 5); err != nil {
				t.Error(err)
			}
			c.Release(5)
		}()
	}
	wg.Wait()
	if s := c.Stats(); s.Misses != 1 || s.Hits != 7 || s.BytesFetched != shardSize {
		t.Errorf("Stats = %+v, want one fetch shared by 8 Acquires", s)
	}
	// Three workers each holding at most one pin never fill 4 slots.
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				id := (w*7 + i*3) % 6
				if _, err := c.Acquire(context.Background(), id); err != nil {
					t.Error(err)
					return
				}
				c.Release(id)
			}
		}(w)
	}
	wg.Wait()
	if c.Used() > 4*shardSize || len(c.Cached()) > 4 {
		t.Errorf("cache over its limit: %d bytes, shards %v", c.Used(), c.Cached())
	}
}

// blocking holds every Get until release is closed or ctx ends.
type blocking struct {
	objstore.Store
	started chan struct{}
	release chan struct{}
	once    sync.Once
}

func (b *blocking) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	b.once.Do(func() { close(b.started) })
	select {
	case <-b.release:
		return b.Store.Get(ctx, key)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// A waiter must not fail because the goroutine doing the fetch gave up.
func TestWaiterSurvivesLoaderCancel(t *testing.T) {
	f := newFixture(t, 1)
	st := &blocking{Store: f.db, started: make(chan struct{}), release: make(chan struct{})}
	c := f.cache(t, st, 0)
	ctx, cancel := context.WithCancel(context.Background())
	loader := make(chan error)
	go func() { _, err := c.Acquire(ctx, 0); loader <- err }()
	<-st.started
	waiter := make(chan error)
	go func() { _, err := c.Acquire(context.Background(), 0); waiter <- err }()
	cancel()
	if err := <-loader; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled loader: %v", err)
	}
	close(st.release)
	if err := <-waiter; err != nil {
		t.Errorf("waiter: %v", err)
	}
	wantCached(t, c, 0)
}
