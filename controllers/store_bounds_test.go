package controllers

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
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
		st := StoreBounds{RequestTimeout: 500 * time.Millisecond}.bound(trickleStore{gap: gap})
		rc, err := st.Get(context.Background(), "result")
		if err != nil {
			return err
		}
		defer rc.Close()
		_, err = io.ReadFull(rc, make([]byte, want))
		return err
	}
	if err := read(20*time.Millisecond, 50); err != nil { // 1 s in all, never 500 ms idle (a loaded machine delays timers)
		t.Errorf("a steady read failed: %v", err)
	}
	start := time.Now()
	err := read(time.Hour, 1)
	if err == nil || time.Since(start) > 5*time.Second {
		t.Fatalf("a stalled read ended after %s with %v, want an error after about 500ms", time.Since(start), err)
	}
	t.Logf("stalled read: %v", err)
}

// hangStore answers no request until its context ends.
type hangStore struct{ objstore.Store }

func hang(ctx context.Context) error { <-ctx.Done(); return context.Cause(ctx) }

func (hangStore) URL(key string) string { return "s3://b/" + key }
func (hangStore) Get(ctx context.Context, _ string) (io.ReadCloser, error) {
	return nil, hang(ctx)
}
func (hangStore) Put(ctx context.Context, _ string, _ io.Reader, _ int64) error { return hang(ctx) }
func (hangStore) Stat(ctx context.Context, _ string) (objstore.Info, error) {
	return objstore.Info{}, hang(ctx)
}
func (hangStore) List(ctx context.Context, _ string) ([]objstore.Info, error) { return nil, hang(ctx) }
func (hangStore) Delete(ctx context.Context, _ string) error                  { return hang(ctx) }
func (hangStore) NewUpload(ctx context.Context, _ string) (objstore.Upload, error) {
	return nil, hang(ctx)
}
func (hangStore) ResumeUpload(ctx context.Context, _, _ string) (objstore.Upload, error) {
	return nil, hang(ctx)
}
func (hangStore) AbortUploads(ctx context.Context, _ string) (int, error) { return 0, hang(ctx) }
func (hangStore) PutIfAbsent(ctx context.Context, _ string, _ []byte) (string, error) {
	return "", hang(ctx)
}
func (hangStore) PutIfMatch(ctx context.Context, _ string, _ []byte, _ string) (string, error) {
	return "", hang(ctx)
}
func (hangStore) GetBytes(ctx context.Context, _ string) ([]byte, string, error) {
	return nil, "", hang(ctx)
}
func (hangStore) Compose(ctx context.Context, _ string, _ []string) error { return hang(ctx) }

// hangUpload is an upload whose requests are never answered.
type hangUpload struct{ objstore.Upload }

func (hangUpload) PutPart(ctx context.Context, _ int, _ []byte) (objstore.Part, error) {
	return objstore.Part{}, hang(ctx)
}
func (hangUpload) Complete(ctx context.Context, _ []objstore.Part) error { return hang(ctx) }
func (hangUpload) Abort(ctx context.Context) error                       { return hang(ctx) }

// Every request the operator makes to a store ends at the request
// timeout, however long the caller's own context (issue 31: every
// storage request has a timeout).
func TestBoundedEveryRequest(t *testing.T) {
	b := StoreBounds{RequestTimeout: 50 * time.Millisecond}
	st := b.bound(hangStore{})
	up := boundedUpload{Upload: hangUpload{}, b: st.(boundedStore)}
	calls := map[string]func(context.Context) error{
		"Get":          func(ctx context.Context) error { _, err := st.Get(ctx, "k"); return err },
		"Put":          func(ctx context.Context) error { return st.Put(ctx, "k", nil, 0) },
		"Stat":         func(ctx context.Context) error { _, err := st.Stat(ctx, "k"); return err },
		"List":         func(ctx context.Context) error { _, err := st.List(ctx, "k"); return err },
		"Delete":       func(ctx context.Context) error { return st.Delete(ctx, "k") },
		"NewUpload":    func(ctx context.Context) error { _, err := st.NewUpload(ctx, "k"); return err },
		"ResumeUpload": func(ctx context.Context) error { _, err := st.ResumeUpload(ctx, "k", "id"); return err },
		"AbortUploads": func(ctx context.Context) error { _, err := st.AbortUploads(ctx, "k"); return err },
		"PutIfAbsent":  func(ctx context.Context) error { _, err := st.PutIfAbsent(ctx, "k", nil); return err },
		"PutIfMatch":   func(ctx context.Context) error { _, err := st.PutIfMatch(ctx, "k", nil, "e"); return err },
		"GetBytes":     func(ctx context.Context) error { _, _, err := st.GetBytes(ctx, "k"); return err },
		"Compose":      func(ctx context.Context) error { return st.Compose(ctx, "k", []string{"a"}) },
		"PutPart":      func(ctx context.Context) error { _, err := up.PutPart(ctx, 1, nil); return err },
		"Complete":     func(ctx context.Context) error { return up.Complete(ctx, nil) },
		"Abort":        func(ctx context.Context) error { return up.Abort(ctx) },
	}
	for name, call := range calls {
		ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
		start := time.Now()
		err := call(ctx)
		cancel()
		if err == nil || time.Since(start) > 2*time.Second {
			t.Errorf("%s on a store that never answers returned %v after %v, want an error at the 50ms request timeout", name, err, time.Since(start))
		}
	}
}
