package output

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// A format whose header depends on the whole output (SAM's lists the
// queries with hits) is written in two steps: the body to BodyLocation,
// as any output, and then, once whole, the header made from it and the
// body to the location (Prepend).

// BodyLocation is where the body of an output to location is written
// before its header is put in front: beside it, hidden for a file.
func BodyLocation(location string) string {
	if IsObject(location) {
		return location + ".body"
	}
	return filepath.Join(filepath.Dir(location), "."+filepath.Base(location)+".body")
}

// Prepend makes location hold header(body)+body, the body being what
// BodyLocation(location) holds, and removes the body. Nothing appears at
// location until it is whole.
func Prepend(ctx context.Context, location string, header func(io.Reader) ([]byte, error)) error {
	body := BodyLocation(location)
	if IsObject(location) {
		return prependObject(ctx, location, header)
	}
	f, err := os.Open(body)
	if err != nil {
		return err
	}
	defer f.Close()
	h, err := header(f)
	if err != nil {
		return fmt.Errorf("%s: %w", body, err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	out, err := os.CreateTemp(filepath.Dir(location), "."+filepath.Base(location)+".partial-*")
	if err != nil {
		return fmt.Errorf("--output %s: %w", location, err)
	}
	_, err = out.Write(h)
	if err == nil {
		_, err = io.Copy(out, f)
	}
	if err == nil {
		err = out.Sync()
	}
	err = errors.Join(err, out.Close())
	if err == nil {
		err = os.Chmod(out.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(out.Name(), location)
	}
	if err != nil {
		_ = os.Remove(out.Name())
		return fmt.Errorf("writing %s: %w", location, err)
	}
	return os.Remove(body)
}

// prependObject is Prepend in an object store: the header is put as an
// object of its own and composed with the body.
func prependObject(ctx context.Context, location string, header func(io.Reader) ([]byte, error)) error {
	st, key, err := objstore.OpenObject(ctx, location)
	if err != nil {
		return err
	}
	bodyKey, headerKey := key+".body", key+".header"
	rc, err := st.Get(ctx, bodyKey)
	if err != nil {
		return err
	}
	h, err := header(rc)
	rc.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", st.URL(bodyKey), err)
	}
	srcs := []string{bodyKey}
	if len(h) > 0 {
		if err := st.Put(ctx, headerKey, bytes.NewReader(h), int64(len(h))); err != nil {
			return err
		}
		srcs = []string{headerKey, bodyKey}
	}
	if err := st.Compose(ctx, key, srcs); err != nil {
		return err
	}
	return errors.Join(st.Delete(ctx, bodyKey), deleteIf(ctx, st, headerKey, len(h) > 0))
}

// deleteIf deletes key if there is one to delete.
func deleteIf(ctx context.Context, st objstore.Store, key string, there bool) error {
	if !there {
		return nil
	}
	return st.Delete(ctx, key)
}
