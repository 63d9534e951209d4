package output

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// Target tells writers where to write; the master creates it and sends it
// to every worker.
type Target struct {
	Location string // what the user gave --output
	TempPath string // file sink: the file being written, renamed at the end
	UploadID string // S3 sink: the multipart upload being written
}

// IsObject reports whether the target is an object store location.
func IsObject(location string) bool { return strings.HasPrefix(location, "s3://") }

// MinBlock is the smallest write block the sink accepts except the last.
func MinBlock(location string) int64 {
	if IsObject(location) {
		return objstore.MinPartSize
	}
	return 1
}

// Begin prepares the output (a temp file or a multipart upload) so nothing
// appears at the location until Finish.
func Begin(ctx context.Context, location string) (Target, error) {
	t := Target{Location: location}
	if IsObject(location) {
		st, key, err := objstore.OpenObject(ctx, location)
		if err != nil {
			return t, fmt.Errorf("--output: %w", err)
		}
		up, err := st.NewUpload(ctx, key)
		if err != nil {
			return t, fmt.Errorf("--output %s: starting upload: %w", location, err)
		}
		t.UploadID = up.ID()
		return t, nil
	}
	dir := filepath.Dir(location)
	f, err := os.CreateTemp(dir, "."+filepath.Base(location)+".partial-*")
	if err != nil {
		return t, fmt.Errorf("--output %s: %w", location, err)
	}
	t.TempPath = f.Name()
	return t, f.Close()
}

// Finish makes the output appear whole at its location.
func Finish(ctx context.Context, t Target, parts []objstore.Part) error {
	if t.UploadID == "" {
		f, err := os.OpenFile(t.TempPath, os.O_RDWR, 0)
		if err != nil {
			return err
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return fmt.Errorf("syncing %s: %w", t.TempPath, err)
		}
		if err := f.Close(); err != nil {
			return err
		}
		if err := os.Chmod(t.TempPath, 0o644); err != nil {
			return err
		}
		return os.Rename(t.TempPath, t.Location)
	}
	st, key, err := objstore.OpenObject(ctx, t.Location)
	if err != nil {
		return err
	}
	up, err := st.ResumeUpload(ctx, key, t.UploadID)
	if err != nil {
		return err
	}
	if len(parts) == 0 {
		// S3 refuses an upload of no parts: an empty result is a plain put.
		if err := up.Abort(ctx); err != nil {
			return err
		}
		return st.Put(ctx, key, bytes.NewReader(nil), 0)
	}
	if err := up.Complete(ctx, parts); err != nil {
		return fmt.Errorf("completing upload of %s: %w", t.Location, err)
	}
	return nil
}

// Abort removes whatever Begin and the writers left.
func Abort(ctx context.Context, t Target) error {
	if t.UploadID == "" {
		if t.TempPath == "" {
			return nil
		}
		return os.Remove(t.TempPath)
	}
	st, key, err := objstore.OpenObject(ctx, t.Location)
	if err != nil {
		return err
	}
	up, err := st.ResumeUpload(ctx, key, t.UploadID)
	if err != nil {
		return err
	}
	return up.Abort(ctx)
}

// Writer writes blocks of the output on a worker.
type Writer struct {
	t    Target
	file *os.File
	up   objstore.Upload
}

// OpenWriter opens the target for writing blocks.
func OpenWriter(ctx context.Context, t Target) (*Writer, error) {
	w := &Writer{t: t}
	if t.UploadID == "" {
		f, err := os.OpenFile(t.TempPath, os.O_WRONLY, 0)
		if err != nil {
			return nil, fmt.Errorf("opening output %s: %w", t.TempPath, err)
		}
		w.file = f
		return w, nil
	}
	st, key, err := objstore.OpenObject(ctx, t.Location)
	if err != nil {
		return nil, err
	}
	up, err := st.ResumeUpload(ctx, key, t.UploadID)
	if err != nil {
		return nil, fmt.Errorf("joining upload of %s: %w", t.Location, err)
	}
	w.up = up
	return w, nil
}

// Write writes one block: at offset in a file, or as part number part
// (offset is then where the part begins in the object).
func (w *Writer) Write(ctx context.Context, offset int64, part int, data []byte) (objstore.Part, error) {
	if w.file != nil {
		if _, err := w.file.WriteAt(data, offset); err != nil {
			return objstore.Part{}, fmt.Errorf("writing %d bytes at %d of %s: %w", len(data), offset, w.t.TempPath, err)
		}
		return objstore.Part{Number: part, Size: int64(len(data))}, injectedWriteFailure(offset, len(data))
	}
	p, err := w.up.PutPart(ctx, part, data)
	if err != nil {
		return p, fmt.Errorf("uploading part %d of %s: %w", part, w.t.Location, err)
	}
	return p, injectedWriteFailure(offset, len(data))
}

// Close releases the writer.
func (w *Writer) Close() error {
	if w.file != nil {
		return w.file.Close()
	}
	return nil
}
