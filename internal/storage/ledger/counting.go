package ledger

import (
	"context"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// CountingStore counts calls per Store method, to report what the ledger
// costs in object-store requests. A call is one request for every method
// the ledger uses on small objects; Compose and multipart Puts are more.
type CountingStore struct {
	objstore.Store
	mu     sync.Mutex
	counts map[string]int64
}

// NewCountingStore wraps st.
func NewCountingStore(st objstore.Store) *CountingStore {
	return &CountingStore{Store: st, counts: map[string]int64{}}
}

func (c *CountingStore) add(op string) {
	c.mu.Lock()
	c.counts[op]++
	c.mu.Unlock()
}

// Counts returns the calls per method since the last Reset.
func (c *CountingStore) Counts() map[string]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.counts)
}

// Total is the number of calls since the last Reset.
func (c *CountingStore) Total() int64 {
	var n int64
	for _, v := range c.Counts() {
		n += v
	}
	return n
}

// Reset zeroes the counts.
func (c *CountingStore) Reset() {
	c.mu.Lock()
	c.counts = map[string]int64{}
	c.mu.Unlock()
}

// String lists the counts as "Get=2 List=1", sorted.
func (c *CountingStore) String() string {
	m := c.Counts()
	parts := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+"="+strconv.FormatInt(m[k], 10))
	}
	return strings.Join(parts, " ")
}

func (c *CountingStore) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	c.add("Get")
	return c.Store.Get(ctx, key)
}

func (c *CountingStore) Put(ctx context.Context, key string, r io.Reader, size int64) error {
	c.add("Put")
	return c.Store.Put(ctx, key, r, size)
}

func (c *CountingStore) Stat(ctx context.Context, key string) (objstore.Info, error) {
	c.add("Stat")
	return c.Store.Stat(ctx, key)
}

func (c *CountingStore) List(ctx context.Context, prefix string) ([]objstore.Info, error) {
	c.add("List")
	return c.Store.List(ctx, prefix)
}

func (c *CountingStore) Delete(ctx context.Context, key string) error {
	c.add("Delete")
	return c.Store.Delete(ctx, key)
}

func (c *CountingStore) PutIfAbsent(ctx context.Context, key string, data []byte) (string, error) {
	c.add("PutIfAbsent")
	return c.Store.PutIfAbsent(ctx, key, data)
}

func (c *CountingStore) PutIfMatch(ctx context.Context, key string, data []byte, etag string) (string, error) {
	c.add("PutIfMatch")
	return c.Store.PutIfMatch(ctx, key, data, etag)
}

func (c *CountingStore) GetBytes(ctx context.Context, key string) ([]byte, string, error) {
	c.add("GetBytes")
	return c.Store.GetBytes(ctx, key)
}

func (c *CountingStore) Compose(ctx context.Context, dst string, srcs []string) error {
	c.add("Compose")
	return c.Store.Compose(ctx, dst, srcs)
}
