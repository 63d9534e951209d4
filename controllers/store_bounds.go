package controllers

import (
	"context"
	"fmt"
	"io"
	"time"

	config "github.com/blastfleet/blastfleet/api/config/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// Defaults of the bounds on the operator's store work (the
// configuration package's): one operator serves every tenant, so a store
// that trickles, swallows packets or holds a huge object must cost its
// own campaign time, never the others'.
const (
	DefaultStoreRequestTimeout = config.DefaultStoreRequestTimeout
	DefaultReconcileTimeout    = config.DefaultReconcileTimeout
	DefaultAssembleTimeout     = config.DefaultAssembleTimeout
	DefaultMaxObjectBytes      = config.DefaultMaxObjectBytes
	DefaultMaxConcurrent       = config.DefaultMaxConcurrent
)

// StoreBounds bound the operator's work on tenants' stores; zero fields
// take the defaults above.
type StoreBounds struct {
	// RequestTimeout is each store request's deadline (a streamed read's:
	// for its answer, then for each stretch without bytes).
	RequestTimeout time.Duration
	// ReconcileTimeout bounds one reconcile's work.
	ReconcileTimeout time.Duration
	// AssembleTimeout is the assembly Job's activeDeadlineSeconds: the
	// Job the operator starts when no partition is left to assemble a
	// result (which reads every part through SHA-256).
	AssembleTimeout time.Duration
	// MaxObjectBytes is the most the operator reads whole: plan.json,
	// ledger records, manifests.
	MaxObjectBytes int64
	// MaxConcurrentReconciles is how many campaigns (and databases) are
	// reconciled at once.
	MaxConcurrentReconciles int
}

func (b StoreBounds) withDefaults() StoreBounds {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&b.RequestTimeout, DefaultStoreRequestTimeout)
	def(&b.ReconcileTimeout, DefaultReconcileTimeout)
	def(&b.AssembleTimeout, DefaultAssembleTimeout)
	if b.MaxObjectBytes <= 0 {
		b.MaxObjectBytes = DefaultMaxObjectBytes
	}
	if b.MaxConcurrentReconciles <= 0 {
		b.MaxConcurrentReconciles = DefaultMaxConcurrent
	}
	return b
}

// reconcileContext bounds a reconcile: its deadline, and the size of what
// it reads whole from any store.
func (b StoreBounds) reconcileContext(ctx context.Context) (context.Context, context.CancelFunc) {
	b = b.withDefaults()
	return context.WithTimeout(objstore.WithReadLimit(ctx, b.MaxObjectBytes), b.ReconcileTimeout)
}

// bound wraps a store the operator opened.
func (b StoreBounds) bound(st objstore.Store) objstore.Store {
	b = b.withDefaults()
	return boundedStore{Store: st, timeout: b.RequestTimeout, limit: b.MaxObjectBytes}
}

// boundedStore is a tenant's store as the operator reaches it: every
// request has a deadline, and what is read whole (plan.json, ledger
// records) has a size limit. A streamed Get has a deadline for its
// answer and then for each stretch without bytes, so a long result can
// be read while a stalled one cannot hold the reader. Every other request,
// uploads' parts included, has the deadline whole.
type boundedStore struct {
	objstore.Store
	timeout time.Duration
	limit   int64
}

func (b boundedStore) ctx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(objstore.WithReadLimit(ctx, b.limit), b.timeout)
}

func (b boundedStore) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	ctx, cancel := context.WithCancelCause(objstore.WithReadLimit(ctx, b.limit))
	stall := fmt.Errorf("%s: no data from the store for %s", b.Store.URL(key), b.timeout)
	idle := time.AfterFunc(b.timeout, func() { cancel(stall) })
	rc, err := b.Store.Get(ctx, key)
	if err != nil {
		idle.Stop()
		cancel(nil)
		return nil, err
	}
	return &idleReader{rc: rc, idle: idle, cancel: cancel, timeout: b.timeout}, nil
}

// idleReader cancels its request when no byte arrived for timeout.
type idleReader struct {
	rc      io.ReadCloser
	idle    *time.Timer
	cancel  context.CancelCauseFunc
	timeout time.Duration
}

func (r *idleReader) Read(p []byte) (int, error) {
	n, err := r.rc.Read(p)
	if n > 0 {
		r.idle.Reset(r.timeout)
	}
	return n, err
}

func (r *idleReader) Close() error {
	r.idle.Stop()
	r.cancel(nil)
	return r.rc.Close()
}

func (b boundedStore) Put(ctx context.Context, key string, rd io.Reader, size int64) error {
	ctx, cancel := b.ctx(ctx)
	defer cancel()
	return b.Store.Put(ctx, key, rd, size)
}

func (b boundedStore) Stat(ctx context.Context, key string) (objstore.Info, error) {
	ctx, cancel := b.ctx(ctx)
	defer cancel()
	return b.Store.Stat(ctx, key)
}

func (b boundedStore) List(ctx context.Context, prefix string) ([]objstore.Info, error) {
	ctx, cancel := b.ctx(ctx)
	defer cancel()
	return b.Store.List(ctx, prefix)
}

func (b boundedStore) Delete(ctx context.Context, key string) error {
	ctx, cancel := b.ctx(ctx)
	defer cancel()
	return b.Store.Delete(ctx, key)
}

func (b boundedStore) AbortUploads(ctx context.Context, key string) (int, error) {
	ctx, cancel := b.ctx(ctx)
	defer cancel()
	return b.Store.AbortUploads(ctx, key)
}

func (b boundedStore) PutIfAbsent(ctx context.Context, key string, data []byte) (string, error) {
	ctx, cancel := b.ctx(ctx)
	defer cancel()
	return b.Store.PutIfAbsent(ctx, key, data)
}

func (b boundedStore) PutIfMatch(ctx context.Context, key string, data []byte, etag string) (string, error) {
	ctx, cancel := b.ctx(ctx)
	defer cancel()
	return b.Store.PutIfMatch(ctx, key, data, etag)
}

func (b boundedStore) GetBytes(ctx context.Context, key string) ([]byte, string, error) {
	ctx, cancel := b.ctx(ctx)
	defer cancel()
	return b.Store.GetBytes(ctx, key)
}

func (b boundedStore) Compose(ctx context.Context, dst string, srcs []string) error {
	ctx, cancel := b.ctx(ctx)
	defer cancel()
	return b.Store.Compose(ctx, dst, srcs)
}

func (b boundedStore) NewUpload(ctx context.Context, key string) (objstore.Upload, error) {
	cctx, cancel := b.ctx(ctx)
	defer cancel()
	up, err := b.Store.NewUpload(cctx, key)
	if err != nil {
		return nil, err
	}
	return boundedUpload{Upload: up, b: b}, nil
}

func (b boundedStore) ResumeUpload(ctx context.Context, key, uploadID string) (objstore.Upload, error) {
	cctx, cancel := b.ctx(ctx)
	defer cancel()
	up, err := b.Store.ResumeUpload(cctx, key, uploadID)
	if err != nil {
		return nil, err
	}
	return boundedUpload{Upload: up, b: b}, nil
}

// boundedUpload gives each request of a multipart upload the deadline.
type boundedUpload struct {
	objstore.Upload
	b boundedStore
}

func (u boundedUpload) PutPart(ctx context.Context, n int, data []byte) (objstore.Part, error) {
	ctx, cancel := u.b.ctx(ctx)
	defer cancel()
	return u.Upload.PutPart(ctx, n, data)
}

func (u boundedUpload) Complete(ctx context.Context, parts []objstore.Part) error {
	ctx, cancel := u.b.ctx(ctx)
	defer cancel()
	return u.Upload.Complete(ctx, parts)
}

func (u boundedUpload) Abort(ctx context.Context) error {
	ctx, cancel := u.b.ctx(ctx)
	defer cancel()
	return u.Upload.Abort(ctx)
}
