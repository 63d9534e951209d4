package cache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/blastfleet/blastfleet/internal/storage/manifest"
)

// load makes every file of s present and matching the manifest. Files
// already on disk are hashed and kept if they match (a run restarted over a
// warm cache), otherwise fetched. It reports whether anything was fetched.
func (c *Cache) load(ctx context.Context, s manifest.Shard) (fetched bool, err error) {
	for _, f := range s.Files {
		if ok, err := c.matches(f); err != nil {
			return fetched, fmt.Errorf("cache: shard %s: %w", s.Name, err)
		} else if ok {
			continue
		}
		fetched = true
		if err := c.fetchVerified(ctx, s, f); err != nil {
			return fetched, err
		}
	}
	return fetched, nil
}

// matches reports whether f is on disk with the manifest's size and SHA-256.
func (c *Cache) matches(f manifest.File) (bool, error) {
	fh, err := os.Open(c.path(f.Name))
	if os.IsNotExist(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer fh.Close()
	h := sha256.New()
	n, err := io.Copy(h, fh)
	if err != nil {
		return false, fmt.Errorf("checking %s: %w", f.Name, err)
	}
	return n == f.Size && hex.EncodeToString(h.Sum(nil)) == f.SHA256, nil
}

// fetchVerified fetches f, and once more if its checksum is wrong (a flipped
// bit in transit); a second mismatch means the stored object itself is bad.
// Through replicas, the second fetch reads the store given to New whole:
// pieces from a replica that differs from the build would spoil every
// fetch that mixes it in.
func (c *Cache) fetchVerified(ctx context.Context, s manifest.Shard, f manifest.File) error {
	got, err := c.fetch(ctx, f, c.replicas != nil)
	if err != nil {
		return fmt.Errorf("cache: shard %s: %w", s.Name, err)
	}
	if got == f.SHA256 {
		return nil
	}
	c.mu.Lock()
	c.stats.Refetches++
	c.mu.Unlock()
	got, err = c.fetch(ctx, f, false)
	if err != nil {
		return fmt.Errorf("cache: shard %s: refetching after a checksum mismatch: %w", s.Name, err)
	}
	if got != f.SHA256 {
		return fmt.Errorf("cache: shard %s file %s: SHA-256 %s, manifest says %s (fetched twice)",
			s.Name, f.Name, got, f.SHA256)
	}
	return nil
}

// fetch copies f from the store (or the replicas) to a temporary name,
// hashes it, and renames it into place only if the hash matches, so a
// crash or a bad copy never leaves a file that looks valid. It returns
// the hash it saw.
func (c *Cache) fetch(ctx context.Context, f manifest.File, viaReplicas bool) (string, error) {
	dst := c.path(f.Name)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(c.dir, tmpPrefix+"*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	var sum string
	if viaReplicas {
		sum, err = c.fetchReplicas(ctx, f, tmp)
	} else {
		sum, err = c.fetchOne(ctx, f, tmp)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	if sum != f.SHA256 {
		return sum, nil
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return "", err
	}
	return sum, nil
}

// fetchOne copies f from the store into tmp while hashing it. It reads
// no more than one byte past the manifest's size: an object larger than
// the manifest says (a manifest that lies to fit the cache) must not fill
// the worker's disk before its hash is checked.
func (c *Cache) fetchOne(ctx context.Context, f manifest.File, tmp *os.File) (string, error) {
	rc, err := c.db.Get(ctx, f.Name)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), io.LimitReader(rc, max(f.Size, 0)+1))
	c.mu.Lock()
	c.stats.BytesFetched += n
	c.mu.Unlock()
	if err != nil {
		return "", fmt.Errorf("fetching %s: %w", c.db.URL(f.Name), err)
	}
	if n > f.Size {
		return "", fmt.Errorf("fetching %s: the object is larger than the manifest's %d bytes", c.db.URL(f.Name), f.Size)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
