package objstore

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
)

// testGetRange: every store we have reads ranges, whole, inside, at the
// end and cut short by the object's end; past the end and a missing key
// are errors.
func testGetRange(t *testing.T, st Store) {
	rr, ok := st.(RangeReader)
	if !ok {
		t.Fatalf("%T does not read ranges", st)
	}
	ctx := context.Background()
	data := randBytes(3<<20 + 17)
	put(t, st, "range/obj", data)
	size := int64(len(data))
	read := func(off, n int64) ([]byte, error) {
		rc, err := rr.GetRange(ctx, "range/obj", off, n)
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		return io.ReadAll(rc)
	}
	for _, c := range []struct{ off, n, want int64 }{
		{0, size, size},
		{0, 1, 1},
		{1 << 20, 1 << 20, 1 << 20},
		{size - 1, 1, 1},
		{size - 10, 100, 10}, // the object ends first
	} {
		got, err := read(c.off, c.n)
		if err != nil {
			t.Fatalf("GetRange(%d, %d): %v", c.off, c.n, err)
		}
		if !bytes.Equal(got, data[c.off:c.off+c.want]) {
			t.Errorf("GetRange(%d, %d) = %d bytes, want the object's %d from %d", c.off, c.n, len(got), c.want, c.off)
		}
	}
	if _, err := read(size, 1); err == nil {
		t.Error("GetRange past the end succeeded")
	}
	for _, bad := range [][2]int64{{-1, 1}, {0, 0}} {
		if _, err := read(bad[0], bad[1]); err == nil {
			t.Errorf("GetRange(%d, %d) accepted", bad[0], bad[1])
		}
	}
	if _, err := rr.GetRange(ctx, "range/missing", 0, 1); !errors.Is(err, ErrNotExist) {
		t.Errorf("GetRange(missing) = %v, want ErrNotExist", err)
	}
}
