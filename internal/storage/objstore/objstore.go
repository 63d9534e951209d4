// Package objstore is the bottom floor of blastfleet: one small interface
// over object storage (any S3 through minio-go, MinIO in tests) and plain
// directories, addressed as s3://bucket/prefix or a path.
package objstore

import (
	"context"
	"errors"
	"io"
	"time"
)

// ErrNotExist is returned (wrapped) when a key does not exist.
var ErrNotExist = errors.New("object does not exist")

// ErrPrecondition is returned (wrapped) when a conditional write loses:
// PutIfAbsent found the key, or PutIfMatch found another version (or none).
var ErrPrecondition = errors.New("precondition failed")

// Info describes one stored object.
type Info struct {
	Key     string // relative to the store's root
	Size    int64
	ETag    string
	ModTime time.Time
}

// Store is a flat key space rooted at a bucket prefix or a directory.
// Keys use '/' as separator and never start with '/'.
type Store interface {
	// Get opens an object for reading; a missing key gives ErrNotExist.
	Get(ctx context.Context, key string) (io.ReadCloser, error)
	// Put stores an object atomically: readers see the old object or the
	// whole new one, never a partial write. size may be -1 when unknown.
	Put(ctx context.Context, key string, r io.Reader, size int64) error
	// Stat returns an object's metadata; a missing key gives ErrNotExist.
	Stat(ctx context.Context, key string) (Info, error)
	// List returns the objects whose keys start with prefix, sorted by key.
	List(ctx context.Context, prefix string) ([]Info, error)
	// Delete removes an object; deleting a missing key is not an error.
	Delete(ctx context.Context, key string) error
	// NewUpload starts an ordered multipart upload of key.
	NewUpload(ctx context.Context, key string) (Upload, error)
	// ResumeUpload joins an upload started elsewhere (another rank).
	ResumeUpload(ctx context.Context, key, uploadID string) (Upload, error)
	// AbortUploads aborts every unfinished upload of key (a dead writer's
	// parts) and returns how many there were.
	AbortUploads(ctx context.Context, key string) (int, error)
	// URL returns the location of key as a user would write it.
	URL(key string) string

	// PutIfAbsent creates key only if it does not exist (S3 If-None-Match:
	// *) and returns the new ETag; an existing key gives ErrPrecondition.
	PutIfAbsent(ctx context.Context, key string, data []byte) (etag string, err error)
	// PutIfMatch replaces key only if its current ETag is etag (S3
	// If-Match) and returns the new ETag. Another version gives
	// ErrPrecondition; a missing key gives an error matching both
	// ErrPrecondition and ErrNotExist. S3's ETag of a plain PUT is the
	// content's MD5, so rewriting identical bytes keeps it: callers that
	// compare-and-swap make every version's content unique.
	PutIfMatch(ctx context.Context, key string, data []byte, etag string) (string, error)
	// GetBytes reads a whole (small) object with its ETag, from one
	// version: the bytes and the ETag always belong together.
	GetBytes(ctx context.Context, key string) ([]byte, string, error)
	// Compose creates dst as the concatenation of srcs in order,
	// server-side where the store can. dst appears whole or not at all.
	Compose(ctx context.Context, dst string, srcs []string) error
}

// Part identifies one uploaded part of a multipart upload.
type Part struct {
	Number int    `json:"number"`
	ETag   string `json:"etag"`
	Size   int64  `json:"size"`
}

// MinPartSize is S3's smallest allowed part, except for the last one.
const MinPartSize = 5 << 20

// Upload is an ordered multipart upload. Parts may be written by different
// processes that share the upload ID; the object appears only on Complete.
type Upload interface {
	ID() string
	Key() string
	// PutPart uploads part number n (1-based).
	PutPart(ctx context.Context, n int, data []byte) (Part, error)
	// Complete assembles the parts in number order into the object.
	Complete(ctx context.Context, parts []Part) error
	// Abort discards the upload and its parts.
	Abort(ctx context.Context) error
}
