package output

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The injected write failure comes after the bytes went out, so clean-up
// has something to remove, and only for the write covering the offset.
func TestInjectedWriteFailure(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	target, err := Begin(ctx, filepath.Join(dir, "out.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := OpenWriter(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	t.Setenv(FailWriteAtEnv, "6")
	if _, err := w.Write(ctx, 0, 1, []byte("first\n")); err != nil {
		t.Fatalf("a write before the offset failed: %v", err)
	}
	_, err = w.Write(ctx, 6, 2, []byte("second\n"))
	if err == nil || !strings.Contains(err.Error(), FailWriteAtEnv) {
		t.Fatalf("the write covering byte 6: %v, want the injected failure", err)
	}
	if _, err := w.Write(ctx, 13, 3, []byte("third\n")); err != nil {
		t.Fatalf("a write after the offset failed: %v", err)
	}
	if got, _ := os.ReadFile(target.TempPath); string(got) != "first\nsecond\nthird\n" {
		t.Errorf("temp file holds %q: the failing write must still have written", got)
	}
	if err := Abort(ctx, target); err != nil {
		t.Fatal(err)
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("Abort left %v", names)
	}

	t.Setenv(FailWriteAtEnv, "soon")
	if err := injectedWriteFailure(0, 10); err == nil || !strings.Contains(err.Error(), "byte offset") {
		t.Errorf("a malformed %s: %v", FailWriteAtEnv, err)
	}
}
