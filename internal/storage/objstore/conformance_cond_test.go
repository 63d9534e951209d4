package objstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
)

func testConditional(t *testing.T, st Store) {
	ctx := context.Background()
	const key = "cond/obj"
	e1, err := st.PutIfAbsent(ctx, key, []byte("v1"))
	if err != nil || e1 == "" {
		t.Fatalf("PutIfAbsent = %q, %v", e1, err)
	}
	if info, err := st.Stat(ctx, key); err != nil || info.ETag != e1 {
		t.Errorf("Stat ETag %q (%v), PutIfAbsent returned %q", info.ETag, err, e1)
	}
	if _, err := st.PutIfAbsent(ctx, key, []byte("other")); !errors.Is(err, ErrPrecondition) {
		t.Errorf("second PutIfAbsent = %v, want ErrPrecondition", err)
	}
	data, etag, err := st.GetBytes(ctx, key)
	if err != nil || string(data) != "v1" || etag != e1 {
		t.Fatalf("GetBytes = %q, %q, %v; want v1, %q", data, etag, err, e1)
	}
	if _, err := st.PutIfMatch(ctx, key, []byte("v2"), "not-the-etag"); !errors.Is(err, ErrPrecondition) {
		t.Errorf("PutIfMatch(wrong etag) = %v, want ErrPrecondition", err)
	}
	e2, err := st.PutIfMatch(ctx, key, []byte("v2"), e1)
	if err != nil || e2 == "" || e2 == e1 {
		t.Fatalf("PutIfMatch = %q, %v (old %q)", e2, err, e1)
	}
	if _, err := st.PutIfMatch(ctx, key, []byte("v3"), e1); !errors.Is(err, ErrPrecondition) {
		t.Errorf("PutIfMatch(stale etag) = %v, want ErrPrecondition", err)
	}
	if got := get(t, st, key); string(got) != "v2" {
		t.Errorf("object holds %q, want v2", got)
	}
	_, err = st.PutIfMatch(ctx, "cond/missing", []byte("x"), e2)
	if !errors.Is(err, ErrPrecondition) || !errors.Is(err, ErrNotExist) {
		t.Errorf("PutIfMatch(missing) = %v, want ErrPrecondition and ErrNotExist", err)
	}
	if _, _, err := st.GetBytes(ctx, "cond/missing"); !errors.Is(err, ErrNotExist) {
		t.Errorf("GetBytes(missing) = %v, want ErrNotExist", err)
	}
	// Delete then create again works.
	if err := st.Delete(ctx, key); err != nil {
		t.Fatal(err)
	}
	if _, err := st.PutIfAbsent(ctx, key, []byte("v1")); err != nil {
		t.Errorf("PutIfAbsent after Delete: %v", err)
	}
}

// testConditionalRace has 8 writers, each on its own handle as separate
// processes would be, race for one create and then for one replace.
func testConditionalRace(t *testing.T, st Store, open func() Store) {
	ctx := context.Background()
	const n = 8
	const key = "race/obj"
	race := func(op func(st Store, i int) error) (wins int) {
		handles := make([]Store, n)
		for i := range handles {
			handles[i] = open()
		}
		errs := make([]error, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				errs[i] = op(handles[i], i)
			}()
		}
		close(start)
		wg.Wait()
		for _, err := range errs {
			switch {
			case err == nil:
				wins++
			case !errors.Is(err, ErrPrecondition):
				t.Errorf("loser got %v, want ErrPrecondition", err)
			}
		}
		return wins
	}
	if w := race(func(st Store, i int) error {
		_, err := st.PutIfAbsent(ctx, key, fmt.Appendf(nil, "create %d", i))
		return err
	}); w != 1 {
		t.Errorf("%d PutIfAbsent won, want exactly 1", w)
	}
	_, old, err := st.GetBytes(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if w := race(func(st Store, i int) error {
		_, err := st.PutIfMatch(ctx, key, fmt.Appendf(nil, "replace %d", i), old)
		return err
	}); w != 1 {
		t.Errorf("%d PutIfMatch won, want exactly 1", w)
	}
}

func testCompose(t *testing.T, st Store) {
	ctx := context.Background()
	// Small sources take the streaming path, large ones the server-side one.
	for _, sizes := range [][]int{{3, 0, 5}, {MinPartSize, MinPartSize + 1, 10}} {
		var srcs []string
		var want [][]byte
		for i, n := range sizes {
			k := fmt.Sprintf("compose/src-%d-%d", len(sizes), i)
			b := randBytes(n)
			put(t, st, k, b)
			srcs, want = append(srcs, k), append(want, b)
		}
		if err := st.Compose(ctx, "compose/dst", srcs); err != nil {
			t.Fatalf("Compose(%v): %v", sizes, err)
		}
		if got := get(t, st, "compose/dst"); !bytes.Equal(got, bytes.Join(want, nil)) {
			t.Errorf("Compose(%v) gave %d bytes, want the %d of the sources in order", sizes, len(got), len(bytes.Join(want, nil)))
		}
	}
	err := st.Compose(ctx, "compose/none", []string{"compose/src-3-0", "compose/missing"})
	if !errors.Is(err, ErrNotExist) {
		t.Errorf("Compose with a missing source = %v, want ErrNotExist", err)
	}
	if _, err := st.Stat(ctx, "compose/none"); !errors.Is(err, ErrNotExist) {
		t.Errorf("failed Compose left its destination: %v", err)
	}
	if err := st.Compose(ctx, "compose/none", nil); err == nil {
		t.Error("Compose of no sources succeeded")
	}
}
