package objstore

import (
	"context"
	"fmt"
	"io"

	"github.com/minio/minio-go/v7"
)

// Compose copies server-side (ComposeObject: a multipart upload of part
// copies) when every source but the last is at least MinPartSize, as S3
// requires; otherwise it streams the sources through one Put. Both make dst
// appear only when complete.
func (s *S3) Compose(ctx context.Context, dst string, srcs []string) error {
	dobj, err := s.object(dst)
	if err != nil {
		return err
	}
	where := "composing " + s.URL(dst)
	if len(srcs) == 0 {
		return fmt.Errorf("%s: no sources", where)
	}
	infos := make([]Info, len(srcs))
	serverSide := len(srcs) <= maxPartNumber
	var total int64
	for i, src := range srcs {
		if infos[i], err = s.Stat(ctx, src); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		total += infos[i].Size
		if i < len(srcs)-1 && infos[i].Size < MinPartSize {
			serverSide = false
		}
	}
	if !serverSide {
		r := &concatReader{ctx: ctx, s: s, infos: infos}
		defer r.close()
		if err := s.Put(ctx, dst, r, total); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		return nil
	}
	cs := make([]minio.CopySrcOptions, len(srcs))
	for i, src := range srcs {
		// Pinning each source's ETag makes a source replaced meanwhile fail
		// the copy instead of mixing versions.
		cs[i] = minio.CopySrcOptions{Bucket: s.bucket, Object: s.prefix + src, MatchETag: infos[i].ETag}
	}
	_, err = s.core.Client.ComposeObject(ctx, minio.CopyDestOptions{Bucket: s.bucket, Object: dobj}, cs...)
	if err != nil {
		return s.wrap(where, err)
	}
	return nil
}

// concatReader reads the sources one after another, opening each only when
// reached, and fails if one's length differs from its Stat (it was replaced
// meanwhile), so Put aborts rather than store a mix.
type concatReader struct {
	ctx   context.Context
	s     *S3
	infos []Info
	cur   io.ReadCloser
	n     int64
}

func (c *concatReader) Read(p []byte) (int, error) {
	for len(c.infos) > 0 {
		if c.cur == nil {
			// Pinned to the version Stat saw, as the server-side path is.
			var opts minio.GetObjectOptions
			opts.SetMatchETag(c.infos[0].ETag)
			rc, _, _, err := c.s.core.GetObject(c.ctx, c.s.bucket, c.s.prefix+c.infos[0].Key, opts)
			if err != nil {
				return 0, c.s.wrap("reading "+c.s.URL(c.infos[0].Key), err)
			}
			c.cur, c.n = rc, 0
		}
		n, err := c.cur.Read(p)
		c.n += int64(n)
		if err == io.EOF {
			if c.n != c.infos[0].Size {
				return n, fmt.Errorf("%s changed while composing: %d bytes, expected %d", c.s.URL(c.infos[0].Key), c.n, c.infos[0].Size)
			}
			c.close()
			c.infos = c.infos[1:]
			err = nil
		}
		if n > 0 || err != nil {
			return n, err
		}
	}
	return 0, io.EOF
}

func (c *concatReader) close() {
	if c.cur != nil {
		c.cur.Close()
		c.cur = nil
	}
}
