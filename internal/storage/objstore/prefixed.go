package objstore

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// Prefixed returns the part of st under dir ("a/b"): its keys are dir's
// children, so code written for a whole store works on one folder of it
// (one build of a database, say). dir must be a valid key. The folder
// reads ranges (RangeReader) when st does.
func Prefixed(st Store, dir string) (Store, error) {
	dir = strings.TrimSuffix(dir, "/")
	if err := checkKey(dir); err != nil {
		return nil, fmt.Errorf("store folder: %w", err)
	}
	p := &prefixed{st: st, p: dir + "/"}
	if _, ok := st.(RangeReader); ok {
		return prefixedRange{p}, nil
	}
	return p, nil
}

type prefixed struct {
	st Store
	p  string
}

func (s *prefixed) key(k string) (string, error) {
	if err := checkKey(k); err != nil {
		return "", err
	}
	return s.p + k, nil
}

func (s *prefixed) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	k, err := s.key(key)
	if err != nil {
		return nil, err
	}
	return s.st.Get(ctx, k)
}

func (s *prefixed) Put(ctx context.Context, key string, r io.Reader, size int64) error {
	k, err := s.key(key)
	if err != nil {
		return err
	}
	return s.st.Put(ctx, k, r, size)
}

func (s *prefixed) Stat(ctx context.Context, key string) (Info, error) {
	k, err := s.key(key)
	if err != nil {
		return Info{}, err
	}
	info, err := s.st.Stat(ctx, k)
	info.Key = strings.TrimPrefix(info.Key, s.p)
	return info, err
}

func (s *prefixed) List(ctx context.Context, prefix string) ([]Info, error) {
	if err := checkPrefix(prefix); err != nil {
		return nil, err
	}
	infos, err := s.st.List(ctx, s.p+prefix)
	for i := range infos {
		infos[i].Key = strings.TrimPrefix(infos[i].Key, s.p)
	}
	return infos, err
}

func (s *prefixed) Delete(ctx context.Context, key string) error {
	k, err := s.key(key)
	if err != nil {
		return err
	}
	return s.st.Delete(ctx, k)
}

func (s *prefixed) NewUpload(ctx context.Context, key string) (Upload, error) {
	k, err := s.key(key)
	if err != nil {
		return nil, err
	}
	u, err := s.st.NewUpload(ctx, k)
	if err != nil {
		return nil, err
	}
	return prefixedUpload{u, key}, nil
}

func (s *prefixed) ResumeUpload(ctx context.Context, key, uploadID string) (Upload, error) {
	k, err := s.key(key)
	if err != nil {
		return nil, err
	}
	u, err := s.st.ResumeUpload(ctx, k, uploadID)
	if err != nil {
		return nil, err
	}
	return prefixedUpload{u, key}, nil
}

func (s *prefixed) AbortUploads(ctx context.Context, key string) (int, error) {
	k, err := s.key(key)
	if err != nil {
		return 0, err
	}
	return s.st.AbortUploads(ctx, k)
}

func (s *prefixed) URL(key string) string { return s.st.URL(s.p + key) }

func (s *prefixed) PutIfAbsent(ctx context.Context, key string, data []byte) (string, error) {
	k, err := s.key(key)
	if err != nil {
		return "", err
	}
	return s.st.PutIfAbsent(ctx, k, data)
}

func (s *prefixed) PutIfMatch(ctx context.Context, key string, data []byte, etag string) (string, error) {
	k, err := s.key(key)
	if err != nil {
		return "", err
	}
	return s.st.PutIfMatch(ctx, k, data, etag)
}

func (s *prefixed) GetBytes(ctx context.Context, key string) ([]byte, string, error) {
	k, err := s.key(key)
	if err != nil {
		return nil, "", err
	}
	return s.st.GetBytes(ctx, k)
}

func (s *prefixed) Compose(ctx context.Context, dst string, srcs []string) error {
	d, err := s.key(dst)
	if err != nil {
		return err
	}
	full := make([]string, len(srcs))
	for i, src := range srcs {
		if full[i], err = s.key(src); err != nil {
			return err
		}
	}
	return s.st.Compose(ctx, d, full)
}

// prefixedUpload reports its key as the folder's callers know it.
type prefixedUpload struct {
	Upload
	key string
}

func (u prefixedUpload) Key() string { return u.key }
