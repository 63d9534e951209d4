package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/s3utils"
)

// unknownSizePart is the buffer for Put with size -1. minio-go would
// otherwise size parts for a 5 TiB object (hundreds of MiB each); 16 MiB
// allows objects up to about 156 GiB, far more than anything streamed.
const unknownSizePart = 16 << 20

// S3 is a Store over an S3 bucket and key prefix, through minio-go.
type S3 struct {
	core      *minio.Core
	transport http.RoundTripper // shared with every client of the same TLS settings
	bucket    string
	prefix    string // "" or ending in '/'
}

// NewS3 returns a Store rooted at bucket/prefix. It does not contact the
// server, so a wrong endpoint or bucket shows on the first operation.
func NewS3(cfg S3Config, bucket, prefix string) (*S3, error) {
	if err := s3utils.CheckValidBucketName(bucket); err != nil {
		return nil, fmt.Errorf("bucket %q: %w", bucket, err)
	}
	prefix = strings.Trim(prefix, "/")
	if err := checkPrefix(prefix); err != nil {
		return nil, fmt.Errorf("s3://%s/%s: %w", bucket, prefix, err)
	}
	if prefix != "" {
		prefix += "/"
	}
	lookup := minio.BucketLookupAuto
	if cfg.PathStyle {
		lookup = minio.BucketLookupPath
	}
	transport, err := cfg.transport()
	if err != nil {
		return nil, err
	}
	core, err := minio.NewCore(cfg.Endpoint, &minio.Options{
		Creds:        cfg.provider(),
		Secure:       cfg.Secure,
		Region:       cfg.Region,
		BucketLookup: lookup,
		Transport:    transport,
	})
	if err != nil {
		return nil, fmt.Errorf("s3 client for %s: %w", cfg, err)
	}
	return &S3{core: core, transport: transport, bucket: bucket, prefix: prefix}, nil
}

// URL returns s3://bucket/prefix/key.
func (s *S3) URL(key string) string { return "s3://" + s.bucket + "/" + s.prefix + key }

func (s *S3) object(key string) (string, error) {
	if err := checkKey(key); err != nil {
		return "", err
	}
	return s.prefix + key, nil
}

// Get fetches the object's headers before returning, so a missing key is
// reported here rather than on the first Read.
func (s *S3) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	obj, err := s.object(key)
	if err != nil {
		return nil, err
	}
	rc, _, _, err := s.core.GetObject(ctx, s.bucket, obj, minio.GetObjectOptions{})
	if err != nil {
		return nil, s.wrap("reading "+s.URL(key), err)
	}
	return rc, nil
}

// Put relies on S3's own atomicity: a PUT or a multipart upload becomes
// visible only when it completes (minio-go aborts a failed multipart).
func (s *S3) Put(ctx context.Context, key string, r io.Reader, size int64) error {
	obj, err := s.object(key)
	if err != nil {
		return err
	}
	opts := minio.PutObjectOptions{}
	if size < 0 {
		opts.PartSize = unknownSizePart
	}
	if _, err := s.core.Client.PutObject(ctx, s.bucket, obj, r, size, opts); err != nil {
		return s.wrap("writing "+s.URL(key), err)
	}
	return nil
}

// Stat returns the object's metadata.
func (s *S3) Stat(ctx context.Context, key string) (Info, error) {
	obj, err := s.object(key)
	if err != nil {
		return Info{}, err
	}
	oi, err := s.core.Client.StatObject(ctx, s.bucket, obj, minio.StatObjectOptions{})
	if err != nil {
		return Info{}, s.wrap("stat "+s.URL(key), err)
	}
	return Info{Key: key, Size: oi.Size, ETag: trimETag(oi.ETag), ModTime: oi.LastModified}, nil
}

// List lists recursively under the store's prefix.
func (s *S3) List(ctx context.Context, prefix string) ([]Info, error) {
	if err := checkPrefix(prefix); err != nil {
		return nil, err
	}
	var out []Info
	for oi := range s.core.Client.ListObjects(ctx, s.bucket, minio.ListObjectsOptions{
		Prefix:    s.prefix + prefix,
		Recursive: true,
	}) {
		if oi.Err != nil {
			return nil, s.wrap("listing "+s.URL(prefix), oi.Err)
		}
		out = append(out, Info{
			Key:     strings.TrimPrefix(oi.Key, s.prefix),
			Size:    oi.Size,
			ETag:    trimETag(oi.ETag),
			ModTime: oi.LastModified,
		})
	}
	// S3 lists in byte order already; sorting keeps the contract explicit
	// for servers that do not.
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// Delete removes the object; S3 already treats a missing key as success.
func (s *S3) Delete(ctx context.Context, key string) error {
	obj, err := s.object(key)
	if err != nil {
		return err
	}
	if err := s.core.Client.RemoveObject(ctx, s.bucket, obj, minio.RemoveObjectOptions{}); err != nil {
		if err := s.wrap("deleting "+s.URL(key), err); !errors.Is(err, ErrNotExist) {
			return err
		}
	}
	return nil
}

// wrap prefixes err with what, turning S3's "not found" codes into
// ErrNotExist while keeping the server's message. NoSuchBucket is left
// alone: it is a configuration error, not a missing object.
func (s *S3) wrap(what string, err error) error {
	var er minio.ErrorResponse
	if errors.As(err, &er) {
		switch {
		case er.Code == minio.NoSuchBucket:
			return fmt.Errorf("%s: bucket %q does not exist: %w", what, s.bucket, err)
		case er.Code == minio.NoSuchKey || er.Code == "NoSuchUpload" || er.StatusCode == 404:
			return fmt.Errorf("%s: %w (%s)", what, ErrNotExist, er.Message)
		// S3 answers a conditional write that raced another with 409
		// ConditionalRequestConflict: it lost just the same.
		case er.Code == minio.PreconditionFailed || er.Code == "ConditionalRequestConflict" || er.StatusCode == 412:
			return fmt.Errorf("%s: %w (%s)", what, ErrPrecondition, er.Message)
		}
	}
	return fmt.Errorf("%s: %w", what, err)
}

// trimETag drops the quotes S3 puts around ETags.
func trimETag(s string) string { return strings.Trim(s, `"`) }

// ErrorCode is the S3 error code somewhere in err's chain ("NoSuchBucket",
// "AccessDenied", ...), or "" when err is not an S3 error response.
func ErrorCode(err error) string {
	var er minio.ErrorResponse
	if errors.As(err, &er) {
		return er.Code
	}
	return ""
}
