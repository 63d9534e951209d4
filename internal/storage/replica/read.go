package replica

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// readPiece reads bytes off..off+n-1 of key (size bytes long) from r
// into a new buffer, and says when the first byte came (the request's
// latency). The whole object is a plain Get; a store without ranges
// reads from the start and drops what comes before the piece.
func readPiece(ctx context.Context, r *replica, key string, off, n, size int64) ([]byte, time.Duration, error) {
	start := time.Now()
	var rc io.ReadCloser
	var err error
	switch {
	case off == 0 && n == size:
		rc, err = r.src.Store.Get(ctx, key)
	case r.ranged != nil:
		rc, err = r.ranged.GetRange(ctx, key, off, n)
	default:
		rc, err = r.src.Store.Get(ctx, key)
		if err == nil {
			if _, err = io.CopyN(io.Discard, rc, off); err != nil {
				rc.Close()
				err = fmt.Errorf("skipping to byte %d: %w", off, err)
			}
		}
	}
	ttfb := time.Since(start)
	if err != nil {
		return nil, ttfb, err
	}
	defer rc.Close()
	buf := make([]byte, n)
	got, err := io.ReadFull(rc, buf)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, ttfb, fmt.Errorf("short read: %d of %d bytes at %d", got, n, off)
	}
	if err != nil {
		return nil, ttfb, fmt.Errorf("reading bytes %d-%d: %w", off, off+n-1, err)
	}
	return buf, ttfb, nil
}
