package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// ErrTooLarge is returned (wrapped) by GetBytes when the object is larger
// than the context's read limit (WithReadLimit).
var ErrTooLarge = errors.New("object too large")

type readLimitKey struct{}

// WithReadLimit bounds what GetBytes reads whole under ctx to n bytes: a
// larger object is refused, before its body is read where the store
// reports its size, with an error naming the key and the limit. A reader
// shared by many tenants (the operator) sets it, so one hostile object
// cannot exhaust its memory. n <= 0 removes the limit.
func WithReadLimit(ctx context.Context, n int64) context.Context {
	return context.WithValue(ctx, readLimitKey{}, n)
}

// readLimit is ctx's limit, 0 for none.
func readLimit(ctx context.Context) int64 {
	n, _ := ctx.Value(readLimitKey{}).(int64)
	return max(n, 0)
}

func tooLarge(url string, size, limit int64) error {
	what := fmt.Sprintf("%d bytes", size)
	if size < 0 {
		what = "more bytes"
	}
	return fmt.Errorf("reading %s: %w: %s, more than the %d bytes this reader allows", url, ErrTooLarge, what, limit)
}

// readAllLimited reads r whole, up to ctx's limit; size is the object's
// size as the store reported it (-1 unknown), checked before any read.
func readAllLimited(ctx context.Context, url string, r io.Reader, size int64) ([]byte, error) {
	limit := readLimit(ctx)
	if limit == 0 {
		return io.ReadAll(r)
	}
	if size > limit {
		return nil, tooLarge(url, size, limit)
	}
	// The reported size may lie (or be absent): never buffer more.
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, tooLarge(url, -1, limit)
	}
	return b, nil
}
