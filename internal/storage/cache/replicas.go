package cache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/replica"
)

// UseReplicas makes the cache fetch files through s, in pieces from
// every replica of the database at once, instead of whole from the store
// given to New. Every file is still checked against the manifest's
// SHA-256; after a mismatch it is fetched again from the store given to
// New alone. Call it before the first Acquire.
func (c *Cache) UseReplicas(s *replica.Set) { c.replicas = s }

// fetchReplicas writes f into tmp through the replica set and returns
// its hash. Pieces arrive out of order, so the file is hashed once whole.
func (c *Cache) fetchReplicas(ctx context.Context, f manifest.File, tmp *os.File) (string, error) {
	w := &countingWriterAt{w: tmp}
	err := c.replicas.Fetch(ctx, f.Name, f.Size, w)
	c.mu.Lock()
	c.stats.BytesFetched += w.n.Load()
	c.mu.Unlock()
	if err != nil {
		return "", err
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return "", fmt.Errorf("hashing %s: %w", f.Name, err)
	}
	h := sha256.New()
	if _, err := io.Copy(h, tmp); err != nil {
		return "", fmt.Errorf("hashing %s: %w", f.Name, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// countingWriterAt counts the bytes written through it.
type countingWriterAt struct {
	w io.WriterAt
	n atomic.Int64
}

func (c *countingWriterAt) WriteAt(p []byte, off int64) (int, error) {
	n, err := c.w.WriteAt(p, off)
	c.n.Add(int64(n))
	return n, err
}
