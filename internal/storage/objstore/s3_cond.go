package objstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/minio/minio-go/v7"
)

// putConditional is one PUT request (never multipart, whose completion
// would not carry the condition) with the condition in opts.
func (s *S3) putConditional(ctx context.Context, what, key string, data []byte, opts minio.PutObjectOptions) (string, error) {
	obj, err := s.object(key)
	if err != nil {
		return "", err
	}
	info, err := s.core.PutObject(ctx, s.bucket, obj, bytes.NewReader(data), int64(len(data)), "", "", opts)
	if err != nil {
		return "", s.wrap(what+" "+s.URL(key), err)
	}
	return trimETag(info.ETag), nil
}

// PutIfAbsent creates key with If-None-Match: *.
func (s *S3) PutIfAbsent(ctx context.Context, key string, data []byte) (string, error) {
	var opts minio.PutObjectOptions
	opts.SetMatchETagExcept("*")
	return s.putConditional(ctx, "creating", key, data, opts)
}

// PutIfMatch replaces key with If-Match: etag. A missing key is a lost
// precondition too, whatever code the server chose for it.
func (s *S3) PutIfMatch(ctx context.Context, key string, data []byte, etag string) (string, error) {
	if etag == "" || etag == "*" {
		return "", fmt.Errorf("replacing %s: want a concrete ETag, got %q", s.URL(key), etag)
	}
	var opts minio.PutObjectOptions
	opts.SetMatchETag(etag)
	tag, err := s.putConditional(ctx, "replacing", key, data, opts)
	if errors.Is(err, ErrNotExist) && !errors.Is(err, ErrPrecondition) {
		err = fmt.Errorf("%w: %w", ErrPrecondition, err)
	}
	return tag, err
}

// GetBytes reads the object in one GET, whose response carries the ETag of
// the version read.
func (s *S3) GetBytes(ctx context.Context, key string) ([]byte, string, error) {
	obj, err := s.object(key)
	if err != nil {
		return nil, "", err
	}
	rc, oi, _, err := s.core.GetObject(ctx, s.bucket, obj, minio.GetObjectOptions{})
	if err != nil {
		return nil, "", s.wrap("reading "+s.URL(key), err)
	}
	defer rc.Close()
	b, err := readAllLimited(ctx, s.URL(key), rc, oi.Size)
	if errors.Is(err, ErrTooLarge) {
		return nil, "", err
	}
	if err != nil {
		return nil, "", s.wrap("reading "+s.URL(key), err)
	}
	return b, trimETag(oi.ETag), nil
}
