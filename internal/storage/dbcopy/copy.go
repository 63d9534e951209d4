package dbcopy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// DefaultParallel is how many files are copied at once by default: enough
// to hide a store's latency, few enough for a small machine's link.
const DefaultParallel = 4

// Progress counts a copy's files and bytes so far.
type Progress struct {
	Files, TotalFiles int
	Bytes, TotalBytes int64
	// Kept is how many files were already there, intact (a resumed copy).
	Kept int
}

// Options tune a copy.
type Options struct {
	Parallel int // files at once; 0: DefaultParallel
	// Progress hears the counts as bytes stream and files end; calls are
	// serialised. nil keeps quiet.
	Progress func(Progress)
}

// Result is what a copy did.
type Result struct {
	Progress
	Manifest *manifest.Manifest // the build copied
}

// Copy copies build ("builds/<id>") of the database rooted at src into
// dst (the replica's root): every file of the build, each checked against
// the manifest while it streams (a mismatch fails naming the file and
// leaves no object), then the build's own manifest, byte for byte, so it
// keeps the SHA-256 campaigns pin. It does not touch dst's manifest.json:
// the caller writes it once the replica is recorded.
func Copy(ctx context.Context, src, dst objstore.Store, build string, o Options) (*Result, error) {
	key := build + "/" + manifest.FileName
	m, sum, err := manifest.LoadPinned(ctx, src, key, "")
	if err != nil {
		return nil, err
	}
	if m.Build == "" {
		return nil, fmt.Errorf("%s: the database's build is not versioned (built before builds/<id>): shard it again to replicate it", src.URL(manifest.FileName))
	}
	from, err := m.Files(src)
	if err != nil {
		return nil, err
	}
	to, err := m.Files(dst)
	if err != nil {
		return nil, err
	}
	files := append([]manifest.File{}, m.Common...)
	for _, s := range m.Shards {
		files = append(files, s.Files...)
	}
	c := &copier{from: from, to: to, report: o.Progress}
	c.p.TotalFiles = len(files)
	for _, f := range files {
		c.p.TotalBytes += f.Size
	}
	g, gctx := errgroup.WithContext(ctx)
	if o.Parallel <= 0 {
		o.Parallel = DefaultParallel
	}
	g.SetLimit(o.Parallel)
	for _, f := range files {
		g.Go(func() error { return c.file(gctx, f) })
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if err := copyManifest(ctx, src, dst, key, sum); err != nil {
		return nil, err
	}
	return &Result{Progress: c.p, Manifest: m}, nil
}

// copyManifest writes the build's manifest to dst as src holds it, if it
// still has the SHA-256 the copy was made against.
func copyManifest(ctx context.Context, src, dst objstore.Store, key, sum string) error {
	data, _, err := src.GetBytes(ctx, key)
	if err != nil {
		return fmt.Errorf("reading %s: %w", src.URL(key), err)
	}
	if got := sha256.Sum256(data); hex.EncodeToString(got[:]) != sum {
		return fmt.Errorf("%s changed while its files were copied: copy again", src.URL(key))
	}
	if err := dst.Put(ctx, key, bytes.NewReader(data), int64(len(data))); err != nil {
		return fmt.Errorf("writing %s: %w", dst.URL(key), err)
	}
	return nil
}

// copier copies files of one build and counts them.
type copier struct {
	from, to objstore.Store
	report   func(Progress)
	mu       sync.Mutex
	p        Progress
}

func (c *copier) add(files, kept int, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.p.Files += files
	c.p.Kept += kept
	c.p.Bytes += bytes
	if c.report != nil {
		c.report(c.p)
	}
}

// file makes f present and intact in the destination.
func (c *copier) file(ctx context.Context, f manifest.File) error {
	ok, err := intact(ctx, c.to, f)
	if err != nil {
		return err
	}
	if ok {
		c.add(1, 1, f.Size)
		return nil
	}
	rc, err := c.from.Get(ctx, f.Name)
	if err != nil {
		return fmt.Errorf("copying %s: %w", c.from.URL(f.Name), err)
	}
	defer rc.Close()
	r := &checkedReader{r: rc, f: f, url: c.from.URL(f.Name), counted: func(n int) { c.add(0, 0, int64(n)) }}
	if err := r.checkEmpty(); err != nil {
		return err
	}
	if err := c.to.Put(ctx, f.Name, r, f.Size); err != nil {
		return fmt.Errorf("copying %s to %s: %w", f.Name, c.to.URL(f.Name), err)
	}
	if r.n != f.Size || !r.verified {
		// The store took fewer bytes than the manifest's size: never
		// leave such an object behind.
		_ = c.to.Delete(ctx, f.Name)
		return fmt.Errorf("copying %s: the store read %d of %d bytes", f.Name, r.n, f.Size)
	}
	c.add(1, 0, 0)
	return nil
}

// intact reports whether f is in st with the manifest's size and SHA-256,
// reading it back: a resumed copy keeps only what checks out.
func intact(ctx context.Context, st objstore.Store, f manifest.File) (bool, error) {
	info, err := st.Stat(ctx, f.Name)
	if errors.Is(err, objstore.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("checking %s: %w", st.URL(f.Name), err)
	}
	if info.Size != f.Size {
		return false, nil
	}
	rc, err := st.Get(ctx, f.Name)
	if err != nil {
		return false, fmt.Errorf("checking %s: %w", st.URL(f.Name), err)
	}
	defer rc.Close()
	h := sha256.New()
	n, err := io.Copy(h, rc)
	if err != nil {
		return false, fmt.Errorf("checking %s: %w", st.URL(f.Name), err)
	}
	return n == f.Size && hex.EncodeToString(h.Sum(nil)) == f.SHA256, nil
}
