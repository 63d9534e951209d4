package objstore

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"strings"
	"testing"
)

// testStore runs the behaviour every Store must share. open returns a
// second, independent handle on the same store (as another process would
// have), for ResumeUpload.
func testStore(t *testing.T, st Store, open func() Store) {
	t.Run("PutGetStat", func(t *testing.T) { testPutGetStat(t, st) })
	t.Run("Missing", func(t *testing.T) { testMissing(t, st) })
	t.Run("List", func(t *testing.T) { testList(t, st) })
	t.Run("UnknownSize", func(t *testing.T) { testUnknownSize(t, st) })
	t.Run("AtomicPut", func(t *testing.T) { testAtomicPut(t, st) })
	t.Run("BadKeys", func(t *testing.T) { testBadKeys(t, st) })
	t.Run("Multipart", func(t *testing.T) { testMultipart(t, st, open()) })
	t.Run("Abort", func(t *testing.T) { testAbort(t, st, open()) })
	t.Run("AbortUploads", func(t *testing.T) { testAbortUploads(t, st, open()) })
	t.Run("Conditional", func(t *testing.T) { testConditional(t, st) })
	t.Run("ConditionalRace", func(t *testing.T) { testConditionalRace(t, st, open) })
	t.Run("Compose", func(t *testing.T) { testCompose(t, st) })
	t.Run("GetRange", func(t *testing.T) { testGetRange(t, st) })
	t.Run("ReadLimit", func(t *testing.T) { testReadLimit(t, st) })
}

// testReadLimit: GetBytes refuses an object larger than the context's
// read limit, naming the key and the limit, and reads one that fits
// (issue 30, finding 2: a 2 GiB plan.json must not exhaust the operator).
func testReadLimit(t *testing.T, st Store) {
	const key = "limit/plan.json"
	data := randBytes(100)
	put(t, st, key, data)
	_, _, err := st.GetBytes(WithReadLimit(context.Background(), 99), key)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "99 bytes") {
		t.Errorf("GetBytes of 100 bytes under a 99-byte limit = %v, want ErrTooLarge naming the key and the limit", err)
	}
	got, _, err := st.GetBytes(WithReadLimit(context.Background(), 100), key)
	if err != nil || !bytes.Equal(got, data) {
		t.Errorf("GetBytes of 100 bytes under a 100-byte limit = %d bytes, %v", len(got), err)
	}
}

func put(t *testing.T, st Store, key string, data []byte) {
	t.Helper()
	if err := st.Put(context.Background(), key, bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatalf("Put(%s): %v", key, err)
	}
}

func get(t *testing.T, st Store, key string) []byte {
	t.Helper()
	rc, err := st.Get(context.Background(), key)
	if err != nil {
		t.Fatalf("Get(%s): %v", key, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("reading %s: %v", key, err)
	}
	return b
}

func randBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

func testPutGetStat(t *testing.T, st Store) {
	ctx := context.Background()
	put(t, st, "pgs/obj", []byte("first"))
	put(t, st, "pgs/obj", []byte("second version"))
	if got := get(t, st, "pgs/obj"); string(got) != "second version" {
		t.Errorf("Get = %q, want the overwrite", got)
	}
	info, err := st.Stat(ctx, "pgs/obj")
	if err != nil {
		t.Fatal(err)
	}
	if info.Key != "pgs/obj" || info.Size != 14 || info.ETag == "" || info.ModTime.IsZero() {
		t.Errorf("Stat = %+v", info)
	}
	put(t, st, "pgs/empty", nil)
	if got := get(t, st, "pgs/empty"); len(got) != 0 {
		t.Errorf("empty object read back %d bytes", len(got))
	}
	if err := st.Delete(ctx, "pgs/obj"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Stat(ctx, "pgs/obj"); !errors.Is(err, ErrNotExist) {
		t.Errorf("Stat after Delete: %v, want ErrNotExist", err)
	}
}

func testMissing(t *testing.T, st Store) {
	ctx := context.Background()
	if _, err := st.Get(ctx, "missing/key"); !errors.Is(err, ErrNotExist) {
		t.Errorf("Get(missing) = %v, want ErrNotExist", err)
	}
	if _, err := st.Stat(ctx, "missing/key"); !errors.Is(err, ErrNotExist) {
		t.Errorf("Stat(missing) = %v, want ErrNotExist", err)
	}
	if err := st.Delete(ctx, "missing/key"); err != nil {
		t.Errorf("Delete(missing) = %v, want nil", err)
	}
	if _, err := st.ResumeUpload(ctx, "missing/key", "00112233445566778899aabbccddeeff"); !errors.Is(err, ErrNotExist) {
		t.Errorf("ResumeUpload(unknown id) = %v, want ErrNotExist", err)
	}
}

func testList(t *testing.T, st Store) {
	ctx := context.Background()
	for _, k := range []string{"ls/b", "ls/a/b/c", "ls/a.txt", "ls/a/b.txt"} {
		put(t, st, k, []byte(k))
	}
	cases := map[string][]string{
		"ls/":   {"ls/a.txt", "ls/a/b.txt", "ls/a/b/c", "ls/b"},
		"ls/a/": {"ls/a/b.txt", "ls/a/b/c"},
		"ls/a":  {"ls/a.txt", "ls/a/b.txt", "ls/a/b/c"},
		"ls/zz": nil,
		"nope/": nil,
	}
	for prefix, want := range cases {
		infos, err := st.List(ctx, prefix)
		if err != nil {
			t.Fatalf("List(%q): %v", prefix, err)
		}
		var got []string
		for _, in := range infos {
			got = append(got, in.Key)
			if in.Size != int64(len(in.Key)) {
				t.Errorf("List(%q): %s has size %d, want %d", prefix, in.Key, in.Size, len(in.Key))
			}
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("List(%q) = %v, want %v", prefix, got, want)
		}
	}
}

// onlyReader hides bytes.Reader's other methods, so the store cannot
// discover the size.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

func testUnknownSize(t *testing.T, st Store) {
	for _, n := range []int{10, 3 << 20} {
		data := randBytes(n)
		if err := st.Put(context.Background(), "unknown/obj", onlyReader{bytes.NewReader(data)}, -1); err != nil {
			t.Fatalf("Put(size -1, %d bytes): %v", n, err)
		}
		if got := get(t, st, "unknown/obj"); !bytes.Equal(got, data) {
			t.Errorf("read back %d bytes, want the %d written", len(got), n)
		}
	}
}

// failingReader returns n bytes and then an error, like a dropped upload.
type failingReader struct{ n int }

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errors.New("connection reset")
	}
	k := min(len(p), f.n)
	for i := range p[:k] {
		p[i] = 'x'
	}
	f.n -= k
	return k, nil
}

func testAtomicPut(t *testing.T, st Store) {
	ctx := context.Background()
	put(t, st, "atomic/obj", []byte("old"))
	for _, size := range []int64{2 << 20, -1} {
		if err := st.Put(ctx, "atomic/obj", &failingReader{n: 1 << 20}, size); err == nil {
			t.Fatalf("Put(size %d) with a failing reader succeeded", size)
		}
		if got := get(t, st, "atomic/obj"); string(got) != "old" {
			t.Fatalf("after a failed Put(size %d) the object holds %d bytes, want the old 3", size, len(got))
		}
	}
	infos, err := st.List(ctx, "atomic/")
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != 1 {
		t.Errorf("failed Puts left objects behind: %+v", infos)
	}
}

func testBadKeys(t *testing.T, st Store) {
	ctx := context.Background()
	for _, k := range []string{"", "/abs", "a/../b", "..", "a//b", "a/", "./a"} {
		if err := st.Put(ctx, k, strings.NewReader("x"), 1); err == nil {
			t.Errorf("Put(%q) succeeded", k)
		}
		if _, err := st.Get(ctx, k); err == nil || errors.Is(err, ErrNotExist) {
			t.Errorf("Get(%q) = %v, want a key error", k, err)
		}
	}
	if _, err := st.List(ctx, "../"); err == nil {
		t.Error(`List("../") succeeded`)
	}
}

func testMultipart(t *testing.T, st, other Store) {
	ctx := context.Background()
	const key = "mp/object"
	data := [][]byte{randBytes(MinPartSize), randBytes(MinPartSize + 7), randBytes(1234)}
	up, err := st.NewUpload(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if up.Key() != key || up.ID() == "" {
		t.Fatalf("upload Key %q ID %q", up.Key(), up.ID())
	}
	// Part 2 comes from another handle, as from another rank.
	joined, err := other.ResumeUpload(ctx, key, up.ID())
	if err != nil {
		t.Fatalf("ResumeUpload: %v", err)
	}
	var parts []Part
	for _, n := range []int{3, 1} {
		p, err := up.PutPart(ctx, n, data[n-1])
		if err != nil {
			t.Fatalf("PutPart(%d): %v", n, err)
		}
		parts = append(parts, p)
	}
	p2, err := joined.PutPart(ctx, 2, data[1])
	if err != nil {
		t.Fatalf("PutPart(2) through the resumed handle: %v", err)
	}
	parts = append(parts, p2)
	if p2.Number != 2 || p2.Size != int64(len(data[1])) || p2.ETag == "" {
		t.Errorf("part 2 = %+v", p2)
	}
	if _, err := st.Stat(ctx, key); !errors.Is(err, ErrNotExist) {
		t.Errorf("object visible before Complete: %v", err)
	}
	if err := joined.Complete(ctx, parts); err != nil { // out of order on purpose
		t.Fatalf("Complete: %v", err)
	}
	if got := get(t, st, key); !bytes.Equal(got, bytes.Join(data, nil)) {
		t.Errorf("assembled object has %d bytes, want the %d uploaded in order", len(got), len(bytes.Join(data, nil)))
	}
	infos, err := st.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range infos {
		if strings.HasPrefix(in.Key, ".") {
			t.Errorf("List shows internal object %s", in.Key)
		}
	}
}

func testAbort(t *testing.T, st, other Store) {
	ctx := context.Background()
	const key = "mp/aborted"
	up, err := st.NewUpload(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	p, err := up.PutPart(ctx, 1, []byte("small last part"))
	if err != nil {
		t.Fatal(err)
	}
	if err := up.Abort(ctx); err != nil {
		t.Fatalf("Abort: %v", err)
	}
	if err := up.Abort(ctx); err != nil {
		t.Errorf("second Abort: %v", err)
	}
	if err := up.Complete(ctx, []Part{p}); err == nil {
		t.Error("Complete after Abort succeeded")
	}
	if _, err := st.Stat(ctx, key); !errors.Is(err, ErrNotExist) {
		t.Errorf("aborted object exists: %v", err)
	}
	if _, err := other.ResumeUpload(ctx, key, up.ID()); !errors.Is(err, ErrNotExist) {
		t.Errorf("ResumeUpload after Abort = %v, want ErrNotExist", err)
	}
	// A part under MinPartSize before the last must fail on either store.
	up, err = st.NewUpload(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	defer up.Abort(ctx)
	p1, _ := up.PutPart(ctx, 1, []byte("tiny"))
	p2, _ := up.PutPart(ctx, 2, []byte("last"))
	if err := up.Complete(ctx, []Part{p1, p2}); err == nil {
		t.Error("Complete with a small non-last part succeeded")
	}
}

// testAbortUploads: a dead writer's unfinished uploads of a key are found
// and aborted from another handle; uploads of other keys, even ones the
// key is a prefix of, are left alone.
func testAbortUploads(t *testing.T, st, other Store) {
	ctx := context.Background()
	const key, longer = "mp/dead-attempt", "mp/dead-attempt-2"
	var ids []string
	for range 2 {
		up, err := st.NewUpload(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := up.PutPart(ctx, 1, []byte("a part never completed")); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, up.ID())
	}
	keep, err := st.NewUpload(ctx, longer)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := other.AbortUploads(ctx, key); err != nil || n != 2 {
		t.Fatalf("AbortUploads = %d, %v; want the 2 uploads of %s", n, err, key)
	}
	for _, id := range ids {
		if _, err := other.ResumeUpload(ctx, key, id); !errors.Is(err, ErrNotExist) {
			t.Errorf("upload %s after AbortUploads: %v, want ErrNotExist", id, err)
		}
	}
	if n, err := other.AbortUploads(ctx, key); err != nil || n != 0 {
		t.Errorf("second AbortUploads = %d, %v; want 0", n, err)
	}
	if _, err := other.ResumeUpload(ctx, longer, keep.ID()); err != nil {
		t.Errorf("the upload of %s was touched: %v", longer, err)
	}
	_ = keep.Abort(ctx)
}
