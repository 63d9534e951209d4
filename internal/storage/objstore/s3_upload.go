package objstore

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/minio/minio-go/v7"
)

// s3Upload is a multipart upload driven through minio.Core, whose calls map
// one to one onto S3's, so any process holding the ID can add parts.
type s3Upload struct {
	s   *S3
	key string
	obj string
	id  string
}

// NewUpload starts a multipart upload of key.
func (s *S3) NewUpload(ctx context.Context, key string) (Upload, error) {
	obj, err := s.object(key)
	if err != nil {
		return nil, err
	}
	id, err := s.core.NewMultipartUpload(ctx, s.bucket, obj, minio.PutObjectOptions{})
	if err != nil {
		return nil, s.wrap("starting upload of "+s.URL(key), err)
	}
	return &s3Upload{s: s, key: key, obj: obj, id: id}, nil
}

// ResumeUpload checks with the server that the upload exists, so a stale ID
// fails here rather than at Complete.
func (s *S3) ResumeUpload(ctx context.Context, key, uploadID string) (Upload, error) {
	obj, err := s.object(key)
	if err != nil {
		return nil, err
	}
	if uploadID == "" {
		return nil, fmt.Errorf("upload of %s: empty upload ID", s.URL(key))
	}
	if _, err := s.core.ListObjectParts(ctx, s.bucket, obj, uploadID, 0, 1); err != nil {
		return nil, s.wrap(fmt.Sprintf("upload %s of %s", uploadID, s.URL(key)), err)
	}
	return &s3Upload{s: s, key: key, obj: obj, id: uploadID}, nil
}

func (u *s3Upload) ID() string  { return u.id }
func (u *s3Upload) Key() string { return u.key }

// PutPart uploads part n; re-sending a part number replaces it.
func (u *s3Upload) PutPart(ctx context.Context, n int, data []byte) (Part, error) {
	if n < 1 || n > maxPartNumber {
		return Part{}, fmt.Errorf("upload of %s: part number %d outside 1..%d", u.s.URL(u.key), n, maxPartNumber)
	}
	p, err := u.s.core.PutObjectPart(ctx, u.s.bucket, u.obj, u.id, n,
		bytes.NewReader(data), int64(len(data)), minio.PutObjectPartOptions{})
	if err != nil {
		return Part{}, u.s.wrap(fmt.Sprintf("upload of %s, part %d", u.s.URL(u.key), n), err)
	}
	return Part{Number: n, ETag: trimETag(p.ETag), Size: int64(len(data))}, nil
}

// Complete assembles the parts, sorted by number as S3 requires.
func (u *s3Upload) Complete(ctx context.Context, parts []Part) error {
	sorted, err := sortParts(parts)
	if err != nil {
		return fmt.Errorf("completing upload of %s: %w", u.s.URL(u.key), err)
	}
	cp := make([]minio.CompletePart, len(sorted))
	for i, p := range sorted {
		cp[i] = minio.CompletePart{PartNumber: p.Number, ETag: p.ETag}
	}
	_, err = u.s.core.CompleteMultipartUpload(ctx, u.s.bucket, u.obj, u.id, cp, minio.PutObjectOptions{})
	if err == nil {
		return nil
	}
	err = u.s.wrap("completing upload of "+u.s.URL(u.key), err)
	if errors.Is(err, ErrNotExist) && u.completedAs(ctx, sorted) {
		// A retry after the server completed the upload but its answer
		// was lost: the object is whole, made of exactly these parts.
		return nil
	}
	return err
}

// completedAs tells whether the object is the upload of these parts
// completed: its ETag is S3's multipart ETag of them, the MD5 of the
// parts' MD5s followed by the part count.
func (u *s3Upload) completedAs(ctx context.Context, parts []Part) bool {
	h := md5.New()
	for _, p := range parts {
		sum, err := hex.DecodeString(p.ETag)
		if err != nil || len(sum) != md5.Size {
			return false
		}
		h.Write(sum)
	}
	info, err := u.s.Stat(ctx, u.key)
	return err == nil && info.ETag == fmt.Sprintf("%x-%d", h.Sum(nil), len(parts))
}

// Abort discards the upload; an upload already gone is not an error.
func (u *s3Upload) Abort(ctx context.Context) error {
	err := u.s.core.AbortMultipartUpload(ctx, u.s.bucket, u.obj, u.id)
	if err == nil {
		return nil
	}
	if err := u.s.wrap("aborting upload of "+u.s.URL(u.key), err); !errors.Is(err, ErrNotExist) {
		return err
	}
	return nil
}

// AbortUploads aborts every unfinished multipart upload of key.
func (s *S3) AbortUploads(ctx context.Context, key string) (int, error) {
	obj, err := s.object(key)
	if err != nil {
		return 0, err
	}
	n, keyMarker, idMarker := 0, "", ""
	for {
		res, err := s.core.ListMultipartUploads(ctx, s.bucket, obj, keyMarker, idMarker, "", 1000)
		if err != nil {
			return n, s.wrap("listing uploads of "+s.URL(key), err)
		}
		for _, up := range res.Uploads {
			if up.Key != obj { // the prefix also matches longer keys
				continue
			}
			if err := s.core.AbortMultipartUpload(ctx, s.bucket, obj, up.UploadID); err != nil {
				return n, s.wrap(fmt.Sprintf("aborting upload %s of %s", up.UploadID, s.URL(key)), err)
			}
			n++
		}
		if !res.IsTruncated {
			return n, nil
		}
		keyMarker, idMarker = res.NextKeyMarker, res.NextUploadIDMarker
	}
}
