package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// writeOutput is how results and reports leave the CLI: what fill writes
// goes to the file path, whole or not at all (writeFileAtomic), or through
// a buffer to stdout when path is empty. It returns the bytes written. A
// failed final flush to stdout comes back as a flushError.
func writeOutput(stdout io.Writer, path string, fill func(io.Writer) error) (int64, error) {
	if path != "" {
		return writeFileAtomic(path, fill)
	}
	bw := bufio.NewWriterSize(stdout, 1<<20)
	cw := &countingWriter{w: bw}
	if err := fill(cw); err != nil {
		bw.Flush()
		return cw.n, err
	}
	if err := bw.Flush(); err != nil {
		return cw.n, flushError{err}
	}
	return cw.n, nil
}

// flushError reads as its cause, so callers that say nothing more keep
// the cause's words; report names what it was writing.
type flushError struct{ error }

func (e flushError) Unwrap() error { return e.error }

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// writeFileAtomic runs fill on a temporary file in path's directory and
// renames it to path only if fill and the file's sync succeed; otherwise
// the temporary file is removed and path is left as it was.
func writeFileAtomic(path string, fill func(io.Writer) error) (n int64, err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return 0, fmt.Errorf("--output-file %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	cw := &countingWriter{w: bw}
	if err = fill(cw); err != nil {
		return 0, err
	}
	if err = bw.Flush(); err != nil {
		return 0, fmt.Errorf("--output-file %s: %w", path, err)
	}
	if err = f.Chmod(0o644); err != nil {
		return 0, fmt.Errorf("--output-file %s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return 0, fmt.Errorf("--output-file %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return 0, fmt.Errorf("--output-file %s: %w", path, err)
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return 0, fmt.Errorf("--output-file %s: %w", path, err)
	}
	return cw.n, nil
}

// Hint prints a follow-up suggestion on w (standard error), so standard
// output stays what scripts parse.
func Hint(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, format+"\n", args...)
}

// CheckFormat refuses an -o value the command does not know, listing the
// ones it does.
func CheckFormat(format string, allowed ...string) error {
	for _, a := range allowed {
		if format == a {
			return nil
		}
	}
	return fmt.Errorf("-o/--output %q: want one of %v", format, allowed)
}
