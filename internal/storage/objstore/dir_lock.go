package objstore

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
)

// locksDir holds the lock files that serialise writes to a key across
// goroutines and processes; List hides it.
const locksDir = ".locks"

// lockStripes bounds the number of lock files: keys share a lock by hash,
// which only serialises unrelated writes for the instant of a rename.
const lockStripes = 64

// lockKey takes key's exclusive lock and returns its release. Each call
// opens its own descriptor, so flock excludes goroutines of one process as
// well as other processes on the machine.
func (d *Dir) lockKey(key string) (unlock func(), err error) {
	h := fnv.New32a()
	h.Write([]byte(key))
	dir := filepath.Join(d.root, locksDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("lock for %s: %w", key, err)
	}
	path := filepath.Join(dir, fmt.Sprintf("%02d", h.Sum32()%lockStripes))
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock for %s: %w", key, err)
	}
	if err := flock(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock for %s: %w", key, err)
	}
	return func() { f.Close() }, nil // closing the descriptor drops the lock
}
