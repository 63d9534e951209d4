package output

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

func TestWorkerMergeWriter(t *testing.T) {
	tests := []struct {
		name string
		held map[int]int64
		want int
	}{
		{"single holder", map[int]int64{3: 100}, 3},
		{"most bytes", map[int]int64{1: 10, 2: 300, 3: 200}, 2},
		{"most bytes on the highest rank", map[int]int64{1: 10, 2: 30, 7: 31}, 7},
		{"tie: lowest rank", map[int]int64{4: 50, 2: 50, 3: 50, 5: 49}, 2},
		{"tie at the top only", map[int]int64{9: 80, 6: 80, 1: 79}, 6},
		{"all zero: lowest rank", map[int]int64{5: 0, 3: 0, 8: 0}, 3},
		{"zero-byte holder never beats a real one", map[int]int64{1: 0, 2: 1}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &Block{Seq: 0, Offset: 0, Size: 1000, Held: tt.held}
			// Map iteration order is random: ask many times.
			for range 100 {
				if got := (WorkerMerge{}).Writer(b); got != tt.want {
					t.Fatalf("Writer = %d, want %d", got, tt.want)
				}
			}
		})
	}
}

func TestIsObjectAndMinBlock(t *testing.T) {
	tests := []struct {
		loc      string
		isObject bool
		minBlock int64
	}{
		{"s3://bucket/out.tsv", true, objstore.MinPartSize},
		{"/data/out.tsv", false, 1},
		{"out.tsv", false, 1},
		{"./s3://x", false, 1},
	}
	for _, tt := range tests {
		if got := IsObject(tt.loc); got != tt.isObject {
			t.Errorf("IsObject(%q) = %v", tt.loc, got)
		}
		if got := MinBlock(tt.loc); got != tt.minBlock {
			t.Errorf("MinBlock(%q) = %d, want %d", tt.loc, got, tt.minBlock)
		}
	}
}

// dirNames lists a directory's entries.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func TestFileSinkRoundTrip(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	final := filepath.Join(dir, "result.tsv")

	target, err := Begin(ctx, final)
	if err != nil {
		t.Fatal(err)
	}
	if target.Location != final || target.UploadID != "" || target.TempPath == "" {
		t.Fatalf("Begin returned %+v", target)
	}
	if filepath.Dir(target.TempPath) != dir {
		t.Errorf("temp file %s is not beside the output (rename must stay on one file system)", target.TempPath)
	}
	if !strings.HasPrefix(filepath.Base(target.TempPath), ".") {
		t.Errorf("temp file %s is not hidden", target.TempPath)
	}
	if _, err := os.Stat(final); !os.IsNotExist(err) {
		t.Fatalf("output visible before Finish: %v", err)
	}

	// Three blocks, written out of order by two writers (two ranks).
	blocks := []struct {
		offset int64
		part   int
		data   string
	}{
		{part: 1, data: "q1\ts1\t1e-50\n"},
		{part: 2, data: "q1\ts2\t1e-20\nq2\ts9\t3e-4\n"},
		{part: 3, data: "q3\ts4\t0.5\n"},
	}
	want := ""
	for i := range blocks {
		blocks[i].offset = int64(len(want))
		want += blocks[i].data
	}
	var wg sync.WaitGroup
	for _, order := range [][]int{{2, 0}, {1}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, err := OpenWriter(ctx, target)
			if err != nil {
				t.Error(err)
				return
			}
			defer w.Close()
			for _, i := range order {
				b := blocks[i]
				p, err := w.Write(ctx, b.offset, b.part, []byte(b.data))
				if err != nil {
					t.Error(err)
					return
				}
				if p.Number != b.part || p.Size != int64(len(b.data)) {
					t.Errorf("Write returned part %+v, want number %d size %d", p, b.part, len(b.data))
				}
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	if _, err := os.Stat(final); !os.IsNotExist(err) {
		t.Fatalf("output visible before Finish: %v", err)
	}

	if err := Finish(ctx, target, nil); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(final)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("output\n got %q\nwant %q", got, want)
	}
	if names := dirNames(t, dir); len(names) != 1 || names[0] != "result.tsv" {
		t.Errorf("directory holds %v, want only result.tsv", names)
	}
	if _, err := os.Stat(target.TempPath); !os.IsNotExist(err) {
		t.Errorf("temp file left: %v", err)
	}
	st, err := os.Stat(final)
	if err != nil {
		t.Fatal(err)
	}
	if perm := st.Mode().Perm(); perm != 0o644 {
		t.Errorf("output mode %v, want 0644", perm)
	}
}

func TestFileSinkEmptyResult(t *testing.T) {
	ctx := context.Background()
	final := filepath.Join(t.TempDir(), "empty.tsv")
	target, err := Begin(ctx, final)
	if err != nil {
		t.Fatal(err)
	}
	if err := Finish(ctx, target, nil); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(final)
	if err != nil || len(got) != 0 {
		t.Errorf("empty result: %q, %v", got, err)
	}
}

func TestFileSinkReplacesExistingOutput(t *testing.T) {
	ctx := context.Background()
	final := filepath.Join(t.TempDir(), "out.tsv")
	if err := os.WriteFile(final, []byte("old contents, longer than the new\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	target, err := Begin(ctx, final)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(final); !strings.HasPrefix(string(got), "old") {
		t.Fatalf("Begin touched the existing output: %q", got)
	}
	w, err := OpenWriter(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(ctx, 0, 1, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := Finish(ctx, target, nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(final); string(got) != "new\n" {
		t.Errorf("output %q, want %q", got, "new\n")
	}
}

func TestFileSinkAbort(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	final := filepath.Join(dir, "result.tsv")
	target, err := Begin(ctx, final)
	if err != nil {
		t.Fatal(err)
	}
	w, err := OpenWriter(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(ctx, 100, 2, []byte("partial\n")); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := Abort(ctx, target); err != nil {
		t.Fatal(err)
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("Abort left %v", names)
	}
	// Aborting a target Begin never created is a no-op.
	if err := Abort(ctx, Target{Location: final}); err != nil {
		t.Errorf("Abort of an empty target: %v", err)
	}
}

func TestFileSinkErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := Begin(ctx, filepath.Join(dir, "no-such-dir", "out.tsv")); err == nil || !strings.Contains(err.Error(), "--output") {
		t.Errorf("Begin in a missing directory: %v", err)
	}
	if _, err := OpenWriter(ctx, Target{Location: "x", TempPath: filepath.Join(dir, "gone")}); err == nil {
		t.Error("OpenWriter of a missing temp file succeeded")
	}
	if err := Finish(ctx, Target{Location: filepath.Join(dir, "x"), TempPath: filepath.Join(dir, "gone")}, nil); err == nil {
		t.Error("Finish of a missing temp file succeeded")
	}
}
