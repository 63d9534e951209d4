package objstore

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/minio/minio-go/v7"
)

// RangeReader is the optional interface of a Store that reads part of an
// object, so one object can be fetched in pieces from several places at
// once. S3, Dir and a Prefixed folder of either implement it.
type RangeReader interface {
	// GetRange opens n bytes of key starting at byte off (off >= 0,
	// n > 0). The reader ends early when the object does; a range that
	// starts at or past the end is an error, a missing key ErrNotExist.
	GetRange(ctx context.Context, key string, off, n int64) (io.ReadCloser, error)
}

func checkRange(off, n int64) error {
	if off < 0 || n <= 0 {
		return fmt.Errorf("byte range at %d of %d bytes: want off >= 0 and n > 0", off, n)
	}
	return nil
}

// GetRange asks the server for bytes off..off+n-1 only.
func (s *S3) GetRange(ctx context.Context, key string, off, n int64) (io.ReadCloser, error) {
	obj, err := s.object(key)
	if err != nil {
		return nil, err
	}
	if err := checkRange(off, n); err != nil {
		return nil, fmt.Errorf("reading %s: %w", s.URL(key), err)
	}
	var opts minio.GetObjectOptions
	if err := opts.SetRange(off, off+n-1); err != nil {
		return nil, fmt.Errorf("reading %s: %w", s.URL(key), err)
	}
	rc, _, _, err := s.core.GetObject(ctx, s.bucket, obj, opts)
	if err != nil {
		return nil, s.wrap(fmt.Sprintf("reading %s bytes %d-%d", s.URL(key), off, off+n-1), err)
	}
	return rc, nil
}

// GetRange reads a section of key's file.
func (d *Dir) GetRange(ctx context.Context, key string, off, n int64) (io.ReadCloser, error) {
	if err := checkRange(off, n); err != nil {
		return nil, fmt.Errorf("reading %s: %w", d.URL(key), err)
	}
	rc, err := d.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	f := rc.(*os.File)
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, d.mapErr(key, err)
	}
	if off >= fi.Size() {
		f.Close()
		return nil, fmt.Errorf("reading %s: range starts at %d, past its %d bytes", d.URL(key), off, fi.Size())
	}
	return sectionCloser{io.NewSectionReader(f, off, n), f}, nil
}

type sectionCloser struct {
	*io.SectionReader
	io.Closer
}

// prefixedRange is a folder of a store that reads ranges: Prefixed
// returns one only over a RangeReader, so a type check on the folder
// answers as it would on the store.
type prefixedRange struct{ *prefixed }

func (s prefixedRange) GetRange(ctx context.Context, key string, off, n int64) (io.ReadCloser, error) {
	k, err := s.key(key)
	if err != nil {
		return nil, err
	}
	return s.st.(RangeReader).GetRange(ctx, k, off, n)
}
