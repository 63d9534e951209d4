// Package cache is a worker's bounded, LRU, checksummed cache of database
// shards. All shards share one directory, so an alias file naming several
// shards (DBLIST shard-000.db shard-001.db) can sit beside them.
//
// One Cache owns its directory: two processes must not share one.
package cache

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/internal/storage/replica"
)

// ErrNoRoom means every shard that could make room is pinned; releasing a
// shard and retrying may succeed.
var ErrNoRoom = errors.New("shard cache full of pinned shards")

// tmpPrefix names files being fetched; New removes leftovers from a crash.
const tmpPrefix = ".fetch-"

// Stats counts cache activity. A hit is an Acquire that fetched nothing,
// a miss one that fetched at least one file; Refetches counts files fetched
// again after a checksum mismatch.
type Stats struct {
	Hits, Misses, Evictions, Refetches int64
	BytesFetched                       int64
}

// Cache holds shards' files in one directory, within maxBytes.
type Cache struct {
	dir      string
	maxBytes int64
	db       objstore.Store
	replicas *replica.Set // when set, files come through it instead of db
	shards   []manifest.Shard

	// common are the database's files every shard needs (the manifest's
	// Common), fetched with the first shard and kept for the cache's life
	// beside the shards, outside their budget.
	common   manifest.Shard
	commonMu sync.Mutex
	commonOK bool

	mu      sync.Mutex
	entries map[int]*entry // shards on disk, or being loaded
	used    int64          // bytes of all entries, loading ones included
	clock   uint64         // ticks on every use, for LRU order
	stats   Stats
}

// entry is a shard that occupies (or is about to occupy) cache space.
type entry struct {
	id       int
	bytes    int64
	pins     int
	lastUse  uint64
	verified bool          // checksums checked since this process started
	loading  chan struct{} // non-nil while a fetch or check runs; closed at its end
	loadErr  error         // set before loading is closed
}

// New opens a cache over dir (created if missing). Shards whose files are
// all present with the manifest's sizes count as cached; their checksums are
// checked on first Acquire, so start-up stays fast on a large cache. Partial
// shards and half-fetched files from an earlier run are removed.
// maxBytes <= 0 means unbounded.
func New(dir string, maxBytes int64, db objstore.Store, m *manifest.Manifest) (*Cache, error) {
	if dir == "" || db == nil || m == nil {
		return nil, errors.New("cache: need a directory, a store and a manifest")
	}
	for _, s := range m.Shards {
		for _, f := range s.Files {
			if err := checkName(f.Name); err != nil {
				return nil, fmt.Errorf("cache: shard %s: %w", s.Name, err)
			}
		}
	}
	common := manifest.Shard{Name: "common files", Files: m.Common}
	for _, f := range m.Common {
		if err := checkName(f.Name); err != nil {
			return nil, fmt.Errorf("cache: common files: %w", err)
		}
	}
	if maxBytes > 0 && len(m.Common) > 0 {
		if common.Bytes() >= maxBytes {
			return nil, fmt.Errorf("cache: the database's common files take %d bytes, the whole cache is %d", common.Bytes(), maxBytes)
		}
		maxBytes -= common.Bytes()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	c := &Cache{
		dir:      dir,
		maxBytes: maxBytes,
		db:       db,
		shards:   m.Shards,
		common:   common,
		entries:  map[int]*entry{},
	}
	if err := c.removeTemps(); err != nil {
		return nil, err
	}
	for i, s := range m.Shards {
		present, err := c.present(s)
		if err != nil {
			return nil, err
		}
		if present {
			c.entries[i] = &entry{id: i, bytes: s.Bytes()}
			c.used += s.Bytes()
		}
	}
	// A smaller limit than last run's: shed shards now.
	if err := c.makeRoom(0); err != nil && !errors.Is(err, ErrNoRoom) {
		return nil, err
	}
	return c, nil
}

// Dir is the directory holding every cached shard's files.
func (c *Cache) Dir() string { return c.dir }

// Release unpins a shard acquired before. Releasing a shard that is not
// pinned does nothing.
func (c *Cache) Release(shardID int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[shardID]; ok && e.pins > 0 {
		e.pins--
	}
}

// Cached returns the ids of shards on disk (not those still loading),
// ascending: what a worker reports to the master.
func (c *Cache) Cached() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	ids := make([]int, 0, len(c.entries))
	for id, e := range c.entries {
		if e.loading == nil {
			ids = append(ids, id)
		}
	}
	sort.Ints(ids)
	return ids
}

// Stats returns a snapshot of the counters.
func (c *Cache) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// Used is the number of bytes the cached and loading shards take.
func (c *Cache) Used() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}

// present reports whether all of a shard's files exist with the right
// sizes; a partial shard's files are removed, since they count toward no
// shard's size and would otherwise leak disk.
func (c *Cache) present(s manifest.Shard) (bool, error) {
	for _, f := range s.Files {
		fi, err := os.Stat(c.path(f.Name))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return false, fmt.Errorf("cache: shard %s: %w", s.Name, err)
		}
		if err != nil || !fi.Mode().IsRegular() || fi.Size() != f.Size {
			return false, c.removeFiles(s)
		}
	}
	return true, nil
}

func (c *Cache) removeTemps() error {
	ents, err := os.ReadDir(c.dir)
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), tmpPrefix) {
			if err := os.Remove(filepath.Join(c.dir, e.Name())); err != nil {
				return fmt.Errorf("cache: removing leftover %s: %w", e.Name(), err)
			}
		}
	}
	return nil
}

// removeFiles deletes a shard's files; missing ones are fine.
func (c *Cache) removeFiles(s manifest.Shard) error {
	for _, f := range s.Files {
		if err := os.Remove(c.path(f.Name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("cache: removing shard %s: %w", s.Name, err)
		}
	}
	return nil
}

func (c *Cache) path(name string) string { return filepath.Join(c.dir, filepath.FromSlash(name)) }

// checkName keeps manifest file names inside the cache directory: it is
// manifest.CheckName, which manifest loading already
// applies; checked again here since a Manifest may be built by hand.
func checkName(name string) error {
	if err := manifest.CheckName(name); err != nil {
		return fmt.Errorf("bad file name %w", err)
	}
	return nil
}

func (c *Cache) shard(id int) (manifest.Shard, error) {
	if id < 0 || id >= len(c.shards) {
		return manifest.Shard{}, fmt.Errorf("cache: no shard %d (manifest has %d)", id, len(c.shards))
	}
	return c.shards[id], nil
}
