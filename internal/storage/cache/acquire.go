package cache

import (
	"context"
	"errors"
	"fmt"
)

// Acquire makes a shard's files present and verified against the manifest's
// checksums, pins the shard so it is not evicted, and returns the directory
// holding its files. Concurrent Acquires of one shard share one fetch.
// Every successful Acquire needs a Release.
func (c *Cache) Acquire(ctx context.Context, shardID int) (string, error) {
	s, err := c.shard(shardID)
	if err != nil {
		return "", err
	}
	if err := c.loadCommon(ctx); err != nil {
		return "", err
	}
	for {
		c.mu.Lock()
		e, ok := c.entries[shardID]
		if ok && e.loading != nil {
			// Someone else is loading it: wait, then look again.
			ch := e.loading
			c.mu.Unlock()
			select {
			case <-ch:
			case <-ctx.Done():
				return "", fmt.Errorf("cache: waiting for shard %s: %w", s.Name, ctx.Err())
			}
			// The loader's own cancellation is not our failure: retry.
			if err := e.loadErr; err != nil && !isCtxErr(err) {
				return "", err
			}
			continue
		}
		if ok && e.verified {
			e.pins++
			c.touch(e)
			c.stats.Hits++
			c.mu.Unlock()
			return c.dir, nil
		}
		if !ok {
			if err := c.makeRoom(s.Bytes()); err != nil {
				c.mu.Unlock()
				return "", fmt.Errorf("cache: fetching shard %s (%d bytes): %w", s.Name, s.Bytes(), err)
			}
			e = &entry{id: shardID, bytes: s.Bytes()}
			c.entries[shardID] = e
			c.used += e.bytes
		}
		e.loading = make(chan struct{})
		e.pins++
		c.touch(e)
		c.mu.Unlock()

		fetched, err := c.load(ctx, s)

		c.mu.Lock()
		if err == nil {
			e.verified = true
			if fetched {
				c.stats.Misses++
			} else {
				c.stats.Hits++
			}
		} else {
			// Drop the shard whole: a half-verified shard is not cached.
			e.pins--
			delete(c.entries, shardID)
			c.used -= e.bytes
			if rmErr := c.removeFiles(s); rmErr != nil {
				err = errors.Join(err, rmErr)
			}
			e.loadErr = err
		}
		close(e.loading)
		e.loading = nil
		c.mu.Unlock()
		if err != nil {
			return "", err
		}
		return c.dir, nil
	}
}

func (c *Cache) touch(e *entry) {
	c.clock++
	e.lastUse = c.clock
}

func isCtxErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// loadCommon makes the database's common files present and verified,
// once; a failure removes them, so the next Acquire fetches them again.
func (c *Cache) loadCommon(ctx context.Context) error {
	if len(c.common.Files) == 0 {
		return nil
	}
	c.commonMu.Lock()
	defer c.commonMu.Unlock()
	if c.commonOK {
		return nil
	}
	if _, err := c.load(ctx, c.common); err != nil {
		if rmErr := c.removeFiles(c.common); rmErr != nil {
			err = errors.Join(err, rmErr)
		}
		return err
	}
	c.commonOK = true
	return nil
}
