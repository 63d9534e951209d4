package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

const (
	// uploadsDir holds multipart uploads in progress; List hides it.
	uploadsDir = ".uploads"
	// tmpPrefix names half-written files; List hides them, so a crash
	// mid-Put leaves nothing that looks like an object.
	tmpPrefix = ".objstore-tmp-"
)

// Dir is a Store over a local directory; keys map to relative paths.
//
// ETags are "<mtime-ns hex>-<size hex>": cheap to compute on Stat and List of
// multi-gigabyte shard files. They are not content hashes. Every write
// (Put, the conditional puts, Compose, a completed upload) renames its file
// into place under the key's lock (a flock on <root>/.locks/NN, so across
// processes too) after stamping it with an mtime later than the version it
// replaces, so the ETag changes on every write even when the clock's tick is
// coarser than the writes. This needs nanosecond timestamps on the file
// system (ext4, xfs, btrfs, tmpfs have them).
type Dir struct {
	root string
}

// NewDir returns a Store rooted at dir, creating it if missing.
func NewDir(dir string) (*Dir, error) {
	d, err := newDir(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(d.root, 0o755); err != nil {
		return nil, fmt.Errorf("creating store directory: %w", err)
	}
	return d, nil
}

// newDir does not create the root: Put creates parents anyway, and
// OpenObject on a mistyped input path should not leave directories behind.
func newDir(dir string) (*Dir, error) {
	if dir == "" {
		return nil, errors.New("empty directory path")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("directory %q: %w", dir, err)
	}
	return &Dir{root: abs}, nil
}

// Root is the directory's absolute path.
func (d *Dir) Root() string { return d.root }

// URL returns the file path of key.
func (d *Dir) URL(key string) string { return filepath.Join(d.root, filepath.FromSlash(key)) }

func (d *Dir) path(key string) (string, error) {
	if err := checkKey(key); err != nil {
		return "", err
	}
	first, _, _ := strings.Cut(key, "/")
	if first == uploadsDir || first == locksDir || strings.HasPrefix(filepath.Base(key), tmpPrefix) {
		return "", fmt.Errorf("object key %q is reserved by the directory store", key)
	}
	return d.URL(key), nil
}

// Get opens the file of key.
func (d *Dir) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	p, err := d.path(key)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, d.mapErr(key, err)
	}
	// A directory is a prefix, not an object.
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: %w", p, ErrNotExist)
	}
	return f, nil
}

// Put writes r to a temporary file beside the target, syncs it and renames
// it into place, so readers never see a partial object.
func (d *Dir) Put(ctx context.Context, key string, r io.Reader, size int64) error {
	p, err := d.path(key)
	if err != nil {
		return err
	}
	_, err = d.install(ctx, key, p, func(w io.Writer) error {
		n, err := io.Copy(w, ctxReader{ctx, r})
		if err != nil {
			return err
		}
		if size >= 0 && n != size {
			return fmt.Errorf("read %d bytes, expected %d", n, size)
		}
		return nil
	}, nil)
	return err
}

// Stat returns the metadata of key's file.
func (d *Dir) Stat(ctx context.Context, key string) (Info, error) {
	p, err := d.path(key)
	if err != nil {
		return Info{}, err
	}
	fi, err := os.Stat(p)
	if err != nil {
		return Info{}, d.mapErr(key, err)
	}
	if !fi.Mode().IsRegular() {
		return Info{}, fmt.Errorf("%s: %w", p, ErrNotExist)
	}
	return fileInfo(key, fi), nil
}

// List walks only the directory named by prefix's last '/', since a prefix
// cannot match anything outside it.
func (d *Dir) List(ctx context.Context, prefix string) ([]Info, error) {
	if err := checkPrefix(prefix); err != nil {
		return nil, err
	}
	start := d.root
	if i := strings.LastIndex(prefix, "/"); i >= 0 {
		start = d.URL(prefix[:i])
	}
	var out []Info
	err := filepath.WalkDir(start, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // the prefix's directory does not exist (yet)
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, err := filepath.Rel(d.root, p)
		if err != nil {
			return err
		}
		key := filepath.ToSlash(rel)
		if e.IsDir() {
			if key == uploadsDir || key == locksDir {
				return fs.SkipDir
			}
			return nil
		}
		if strings.HasPrefix(e.Name(), tmpPrefix) || !strings.HasPrefix(key, prefix) {
			return nil
		}
		fi, err := os.Stat(p) // follows symlinks, unlike e.Info
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // deleted while listing
			}
			return err
		}
		if fi.Mode().IsRegular() {
			out = append(out, fileInfo(key, fi))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", d.URL(prefix), err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// Delete removes key's file under the key's lock, so it cannot fall between
// a conditional write's check and its rename. Emptied parent directories are
// left in place: removing them could race with a concurrent Put into the
// same directory.
func (d *Dir) Delete(ctx context.Context, key string) error {
	p, err := d.path(key)
	if err != nil {
		return err
	}
	unlock, err := d.lockKey(key)
	if err != nil {
		return err
	}
	defer unlock()
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("deleting %s: %w", p, err)
	}
	return nil
}

func (d *Dir) mapErr(key string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", d.URL(key), ErrNotExist)
	}
	return fmt.Errorf("%s: %w", d.URL(key), err)
}

func fileInfo(key string, fi fs.FileInfo) Info {
	return Info{
		Key:     key,
		Size:    fi.Size(),
		ETag:    fmt.Sprintf("%x-%x", fi.ModTime().UnixNano(), fi.Size()),
		ModTime: fi.ModTime(),
	}
}
