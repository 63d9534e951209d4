package cache

import "fmt"

// makeRoom evicts least recently used unpinned shards until need more bytes
// fit. Called with c.mu held.
func (c *Cache) makeRoom(need int64) error {
	if c.maxBytes <= 0 {
		return nil
	}
	if need > c.maxBytes {
		return fmt.Errorf("shard needs %d bytes, more than the whole cache (%d)", need, c.maxBytes)
	}
	for c.used+need > c.maxBytes {
		victim := c.lru()
		if victim == nil {
			return fmt.Errorf("%w: need %d bytes, %d of %d in use", ErrNoRoom, need, c.used, c.maxBytes)
		}
		// Forget the shard before deleting, so a failed delete cannot leave
		// an entry pointing at missing files.
		delete(c.entries, victim.id)
		c.used -= victim.bytes
		c.stats.Evictions++
		if err := c.removeFiles(c.shards[victim.id]); err != nil {
			return err
		}
	}
	return nil
}

// lru returns the least recently used shard that is neither pinned nor
// loading; ties (shards found on disk at start) go to the highest id, so the
// low ids the master prefers stay.
func (c *Cache) lru() *entry {
	var best *entry
	for _, e := range c.entries {
		if e.pins > 0 || e.loading != nil {
			continue
		}
		if best == nil || e.lastUse < best.lastUse || (e.lastUse == best.lastUse && e.id > best.id) {
			best = e
		}
	}
	return best
}
