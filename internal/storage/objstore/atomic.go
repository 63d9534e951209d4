package objstore

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// writeAtomic creates path with the bytes fill writes: into a temporary file
// in the same directory (so rename cannot cross file systems), synced before
// the rename so a crash leaves the old file or the whole new one.
func writeAtomic(ctx context.Context, path string, fill func(io.Writer) error) error {
	tmp, err := writeTemp(ctx, path, fill)
	if err != nil {
		return err
	}
	return renameInto(tmp, path)
}

// writeTemp writes and syncs a temporary file beside path and returns its
// name; the caller renames it into place (renameInto) or removes it.
func writeTemp(ctx context.Context, path string, fill func(io.Writer) error) (tmp string, err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	f, err := os.CreateTemp(dir, tmpPrefix+"*")
	if err != nil {
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
			err = fmt.Errorf("writing %s: %w", path, err)
		}
	}()
	if err := fill(f); err != nil {
		return "", err
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	// CreateTemp makes 0600 files; objects should read like ordinary files.
	if err := f.Chmod(0o644); err != nil {
		return "", err
	}
	if err := f.Sync(); err != nil {
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	return f.Name(), nil
}

// renameInto moves a synced temporary file onto path, removing it on error.
func renameInto(tmp, path string) error {
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	syncDir(filepath.Dir(path))
	return nil
}

// syncDir makes a rename durable. Best effort: some file systems refuse
// fsync on directories, and the data itself is already synced.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// ctxReader stops a long copy when ctx is cancelled.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
