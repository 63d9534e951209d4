package controllers

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/objstore"
)

// trickleStore's objects send one byte every gap, until their request's
// context ends.
type trickleStore struct {
	objstore.Store
	gap time.Duration
}

func (s trickleStore) URL(key string) string { return "s3://b/" + key }

func (s trickleStore) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	return io.NopCloser(trickle{ctx, s.gap}), nil
}

type trickle struct {
	ctx context.Context
	gap time.Duration
}

func (t trickle) Read(p []byte) (int, error) {
	select {
	case <-t.ctx.Done():
		return 0, context.Cause(t.ctx)
	case <-time.After(t.gap):
		p[0] = 'x'
		return 1, nil
	}
}

// A streamed read from the operator's store ends once no byte came for
// the request timeout, and goes on while bytes keep coming (issue 30,
// finding 2: an endpoint that stalls must not hold a worker for ever).
func TestBoundedGetStall(t *testing.T) {
	read := func(gap time.Duration, want int) error {
		st := StoreBounds{RequestTimeout: 100 * time.Millisecond}.bound(trickleStore{gap: gap})
		rc, err := st.Get(context.Background(), "result")
		if err != nil {
			return err
		}
		defer rc.Close()
		_, err = io.ReadFull(rc, make([]byte, want))
		return err
	}
	if err := read(20*time.Millisecond, 20); err != nil { // 400 ms in all, never 100 ms idle
		t.Errorf("a steady read failed: %v", err)
	}
	start := time.Now()
	err := read(time.Hour, 1)
	if err == nil || time.Since(start) > 5*time.Second {
		t.Fatalf("a stalled read ended after %s with %v, want an error after about 100ms", time.Since(start), err)
	}
	t.Logf("stalled read: %v", err)
}
