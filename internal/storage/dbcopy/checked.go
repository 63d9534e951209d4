package dbcopy

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"

	"github.com/blastfleet/blastfleet/internal/storage/manifest"
)

// checkedReader hands over exactly f.Size bytes of r and checks their
// SHA-256 before the last of them: on a mismatch it withholds them and
// fails, so the store's Put fails too and no object appears (a store
// given its size may stop reading at the last byte, never seeing an
// error that came only at EOF).
type checkedReader struct {
	r        io.Reader
	f        manifest.File
	url      string // of the source, for errors
	counted  func(n int)
	h        hash.Hash
	n        int64
	verified bool
}

func (c *checkedReader) Read(p []byte) (int, error) {
	if c.h == nil {
		c.h = sha256.New()
	}
	left := c.f.Size - c.n
	if left == 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > left {
		p = p[:left]
	}
	n, err := c.r.Read(p)
	c.h.Write(p[:n])
	c.n += int64(n)
	if c.n == c.f.Size {
		if err := c.check(); err != nil {
			return 0, err
		}
		err = nil // the rest of the source, if any, is not the file's
	} else if err == io.EOF {
		return n, fmt.Errorf("copying %s: %s ends after %d bytes, the manifest says %d: %w", c.f.Name, c.url, c.n, c.f.Size, io.ErrUnexpectedEOF)
	}
	if c.counted != nil && n > 0 {
		c.counted(n)
	}
	return n, err
}

// checkEmpty checks an empty file, of which Put may read nothing.
func (c *checkedReader) checkEmpty() error {
	if c.f.Size != 0 {
		return nil
	}
	c.h = sha256.New()
	return c.check()
}

func (c *checkedReader) check() error {
	if got := hex.EncodeToString(c.h.Sum(nil)); got != c.f.SHA256 {
		return fmt.Errorf("copying %s: %s has SHA-256 %s, the manifest says %s (the source is damaged: nothing was written)", c.f.Name, c.url, got, c.f.SHA256)
	}
	c.verified = true
	return nil
}
