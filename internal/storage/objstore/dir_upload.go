package objstore

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// maxPartNumber is S3's limit; the directory store keeps it so code tested
// against directories behaves the same against a bucket.
const maxPartNumber = 10000

// keyFile records an upload's key, so ResumeUpload can refuse an ID that
// belongs to another object.
const keyFile = "key"

// dirUpload keeps parts as files <root>/.uploads/<id>/part-NNNNN. Part ETags
// are the hex SHA-256 of the part, checked again while Complete concatenates.
type dirUpload struct {
	d   *Dir
	key string
	id  string
	dir string
}

// NewUpload starts a multipart upload of key.
func (d *Dir) NewUpload(ctx context.Context, key string) (Upload, error) {
	if _, err := d.path(key); err != nil {
		return nil, err
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("upload of %s: %w", d.URL(key), err)
	}
	u := d.upload(key, hex.EncodeToString(b[:]))
	if err := os.MkdirAll(u.dir, 0o755); err != nil {
		return nil, fmt.Errorf("upload of %s: %w", d.URL(key), err)
	}
	err := writeAtomic(ctx, filepath.Join(u.dir, keyFile), func(w io.Writer) error {
		_, err := io.WriteString(w, key)
		return err
	})
	if err != nil {
		os.RemoveAll(u.dir)
		return nil, fmt.Errorf("upload of %s: %w", d.URL(key), err)
	}
	return u, nil
}

// ResumeUpload joins an upload another process started with NewUpload.
func (d *Dir) ResumeUpload(ctx context.Context, key, uploadID string) (Upload, error) {
	if _, err := d.path(key); err != nil {
		return nil, err
	}
	if _, err := hex.DecodeString(uploadID); err != nil || uploadID == "" {
		return nil, fmt.Errorf("upload of %s: malformed upload ID %q", d.URL(key), uploadID)
	}
	u := d.upload(key, uploadID)
	got, err := os.ReadFile(filepath.Join(u.dir, keyFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("upload %s of %s: %w", uploadID, d.URL(key), ErrNotExist)
	}
	if err != nil {
		return nil, fmt.Errorf("upload %s of %s: %w", uploadID, d.URL(key), err)
	}
	if string(got) != key {
		return nil, fmt.Errorf("upload %s is for key %q, not %q", uploadID, got, key)
	}
	return u, nil
}

func (d *Dir) upload(key, id string) *dirUpload {
	return &dirUpload{d: d, key: key, id: id, dir: filepath.Join(d.root, uploadsDir, id)}
}

func (u *dirUpload) ID() string  { return u.id }
func (u *dirUpload) Key() string { return u.key }

func (u *dirUpload) partPath(n int) string {
	return filepath.Join(u.dir, fmt.Sprintf("part-%05d", n))
}

// PutPart writes part n atomically, so a retried part simply replaces it.
func (u *dirUpload) PutPart(ctx context.Context, n int, data []byte) (Part, error) {
	if n < 1 || n > maxPartNumber {
		return Part{}, fmt.Errorf("upload of %s: part number %d outside 1..%d", u.d.URL(u.key), n, maxPartNumber)
	}
	if err := u.exists(); err != nil {
		return Part{}, err
	}
	err := writeAtomic(ctx, u.partPath(n), func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
	if err != nil {
		return Part{}, fmt.Errorf("upload of %s, part %d: %w", u.d.URL(u.key), n, err)
	}
	sum := sha256.Sum256(data)
	return Part{Number: n, ETag: hex.EncodeToString(sum[:]), Size: int64(len(data))}, nil
}

// Complete concatenates the parts into a temporary file and renames it into
// place, then removes the upload. Like S3, every part but the last must be at
// least MinPartSize.
func (u *dirUpload) Complete(ctx context.Context, parts []Part) error {
	where := fmt.Sprintf("completing upload of %s", u.d.URL(u.key))
	if err := u.exists(); err != nil {
		return err
	}
	parts, err := sortParts(parts)
	if err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	_, err = u.d.install(ctx, u.key, u.d.URL(u.key), func(w io.Writer) error {
		for i, p := range parts {
			if err := u.appendPart(ctx, w, p, i == len(parts)-1); err != nil {
				return err
			}
		}
		return nil
	}, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	if err := os.RemoveAll(u.dir); err != nil {
		return fmt.Errorf("%s: removing parts: %w", where, err)
	}
	return nil
}

func (u *dirUpload) appendPart(ctx context.Context, w io.Writer, p Part, last bool) error {
	f, err := os.Open(u.partPath(p.Number))
	if err != nil {
		return fmt.Errorf("part %d: %w", p.Number, err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(w, h), ctxReader{ctx, f})
	if err != nil {
		return fmt.Errorf("part %d: %w", p.Number, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != p.ETag {
		return fmt.Errorf("part %d: stored ETag %s, caller gave %s", p.Number, got, p.ETag)
	}
	if !last && n < MinPartSize {
		return fmt.Errorf("part %d is %d bytes; only the last part may be under %d", p.Number, n, MinPartSize)
	}
	return nil
}

// Abort removes the upload's parts; aborting twice is not an error.
func (u *dirUpload) Abort(ctx context.Context) error {
	if err := os.RemoveAll(u.dir); err != nil {
		return fmt.Errorf("aborting upload of %s: %w", u.d.URL(u.key), err)
	}
	return nil
}

func (u *dirUpload) exists() error {
	if _, err := os.Stat(filepath.Join(u.dir, keyFile)); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("upload %s of %s: %w", u.id, u.d.URL(u.key), ErrNotExist)
		}
		return fmt.Errorf("upload %s of %s: %w", u.id, u.d.URL(u.key), err)
	}
	return nil
}

// sortParts returns parts in number order, as S3 requires, so callers may
// collect them in any order; duplicates and an empty list are errors.
func sortParts(parts []Part) ([]Part, error) {
	if len(parts) == 0 {
		return nil, errors.New("no parts")
	}
	s := append([]Part(nil), parts...)
	sort.Slice(s, func(i, j int) bool { return s[i].Number < s[j].Number })
	for i := 1; i < len(s); i++ {
		if s[i].Number == s[i-1].Number {
			return nil, fmt.Errorf("part %d listed twice", s[i].Number)
		}
	}
	return s, nil
}

// AbortUploads removes every unfinished upload of key.
func (d *Dir) AbortUploads(ctx context.Context, key string) (int, error) {
	if _, err := d.path(key); err != nil {
		return 0, err
	}
	entries, err := os.ReadDir(filepath.Join(d.root, uploadsDir))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("listing uploads of %s: %w", d.URL(key), err)
	}
	n := 0
	for _, e := range entries {
		u := d.upload(key, e.Name())
		if got, err := os.ReadFile(filepath.Join(u.dir, keyFile)); err != nil || string(got) != key {
			continue
		}
		if err := os.RemoveAll(u.dir); err != nil {
			return n, fmt.Errorf("aborting upload %s of %s: %w", e.Name(), d.URL(key), err)
		}
		n++
	}
	return n, nil
}
