package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// install writes a new version of key at path. fill runs into a temporary
// file outside any lock (objects can be large); then, under key's lock,
// check (if any) sees the current version (err ErrNotExist when there is
// none) and may refuse, the file is stamped with an mtime past the current
// version's, and renamed into place. It returns the new version's Info.
func (d *Dir) install(ctx context.Context, key, path string, fill func(io.Writer) error,
	check func(cur Info, err error) error) (Info, error) {
	tmp, err := writeTemp(ctx, path, fill)
	if err != nil {
		return Info{}, err
	}
	info, err := d.installLocked(ctx, key, path, tmp, check)
	if err != nil {
		os.Remove(tmp)
		return Info{}, err
	}
	return info, nil
}

func (d *Dir) installLocked(ctx context.Context, key, path, tmp string, check func(Info, error) error) (Info, error) {
	unlock, err := d.lockKey(key)
	if err != nil {
		return Info{}, err
	}
	defer unlock()
	cur, statErr := d.Stat(ctx, key)
	if statErr != nil && !errors.Is(statErr, ErrNotExist) {
		return Info{}, statErr
	}
	if check != nil {
		if err := check(cur, statErr); err != nil {
			return Info{}, err
		}
	}
	// Past the replaced version even if the clock has not ticked since, so
	// the ETag (mtime, size) always changes.
	stamp := time.Now()
	if statErr == nil && !stamp.After(cur.ModTime) {
		stamp = cur.ModTime.Add(time.Nanosecond)
	}
	if err := os.Chtimes(tmp, stamp, stamp); err != nil {
		return Info{}, fmt.Errorf("writing %s: %w", path, err)
	}
	if err := renameInto(tmp, path); err != nil {
		return Info{}, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return Info{}, d.mapErr(key, err)
	}
	return fileInfo(key, fi), nil
}

func writeBytes(data []byte) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}
}

// PutIfAbsent creates key only if no version of it exists.
func (d *Dir) PutIfAbsent(ctx context.Context, key string, data []byte) (string, error) {
	p, err := d.path(key)
	if err != nil {
		return "", err
	}
	info, err := d.install(ctx, key, p, writeBytes(data), func(cur Info, err error) error {
		if err == nil {
			return fmt.Errorf("creating %s: %w (it exists)", p, ErrPrecondition)
		}
		return nil
	})
	return info.ETag, err
}

// PutIfMatch replaces key only if its current version has ETag etag.
func (d *Dir) PutIfMatch(ctx context.Context, key string, data []byte, etag string) (string, error) {
	p, err := d.path(key)
	if err != nil {
		return "", err
	}
	info, err := d.install(ctx, key, p, writeBytes(data), func(cur Info, err error) error {
		switch {
		case err != nil:
			return fmt.Errorf("replacing %s: %w: %w", p, ErrPrecondition, ErrNotExist)
		case cur.ETag != etag:
			return fmt.Errorf("replacing %s: %w (ETag %s, expected %s)", p, ErrPrecondition, cur.ETag, etag)
		}
		return nil
	})
	return info.ETag, err
}

// GetBytes reads key through one descriptor, so the ETag (from fstat) is
// that of the bytes read even if a write replaces the file meanwhile.
func (d *Dir) GetBytes(ctx context.Context, key string) ([]byte, string, error) {
	rc, err := d.Get(ctx, key)
	if err != nil {
		return nil, "", err
	}
	f := rc.(*os.File)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, "", d.mapErr(key, err)
	}
	b, err := readAllLimited(ctx, d.URL(key), ctxReader{ctx, f}, fi.Size())
	if errors.Is(err, ErrTooLarge) {
		return nil, "", err
	}
	if err != nil {
		return nil, "", d.mapErr(key, err)
	}
	return b, fileInfo(key, fi).ETag, nil
}

// Compose concatenates the sources' files into a temporary file renamed
// onto dst: a directory has no server-side copy, and the rename makes it
// atomic.
func (d *Dir) Compose(ctx context.Context, dst string, srcs []string) error {
	p, err := d.path(dst)
	if err != nil {
		return err
	}
	if len(srcs) == 0 {
		return fmt.Errorf("composing %s: no sources", p)
	}
	for _, s := range srcs {
		if _, err := d.path(s); err != nil {
			return fmt.Errorf("composing %s: %w", p, err)
		}
	}
	_, err = d.install(ctx, dst, p, func(w io.Writer) error {
		for _, s := range srcs {
			if err := d.copyTo(ctx, w, s); err != nil {
				return err
			}
		}
		return nil
	}, nil)
	if err != nil {
		return fmt.Errorf("composing %s: %w", p, err)
	}
	return nil
}

func (d *Dir) copyTo(ctx context.Context, w io.Writer, key string) error {
	rc, err := d.Get(ctx, key)
	if err != nil {
		return err
	}
	defer rc.Close()
	if _, err := io.Copy(w, ctxReader{ctx, rc}); err != nil {
		return d.mapErr(key, err)
	}
	return nil
}
