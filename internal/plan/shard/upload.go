package shard

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// uploadDir puts every file of dir into the store under its base name
// (shard file names are unique across shards, so the layout is flat) and
// returns them sorted by name with size and SHA-256.
func uploadDir(ctx context.Context, st objstore.Store, dir string) ([]manifest.File, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", dir, err)
	}
	var files []manifest.File
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		f, err := uploadFile(ctx, st, filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	sortFiles(files)
	return files, nil
}

func uploadFile(ctx context.Context, st objstore.Store, path string) (manifest.File, error) {
	name := filepath.Base(path)
	f, err := os.Open(path)
	if err != nil {
		return manifest.File{}, fmt.Errorf("uploading %s: %w", name, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return manifest.File{}, fmt.Errorf("uploading %s: %w", name, err)
	}
	// Hash while uploading; the byte count proves the hash saw it all.
	hr := &hashingReader{r: f, h: sha256.New()}
	if err := st.Put(ctx, name, hr, fi.Size()); err != nil {
		return manifest.File{}, fmt.Errorf("uploading %s to %s: %w", name, st.URL(name), err)
	}
	if _, err := io.Copy(io.Discard, hr); err != nil {
		return manifest.File{}, fmt.Errorf("uploading %s: %w", name, err)
	}
	if hr.n != fi.Size() {
		return manifest.File{}, fmt.Errorf("uploading %s: read %d bytes, file has %d (changed during upload?)", name, hr.n, fi.Size())
	}
	return manifest.File{Name: name, Size: fi.Size(), SHA256: hex.EncodeToString(hr.h.Sum(nil))}, nil
}

func sortFiles(files []manifest.File) {
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
}
