package controllers

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// secretTTL is how long a credentials Secret (or caBundle ConfigMap) read
// serves the reconciles after it. Secrets are read uncached, so the operator
// needs only get on them, never list or watch; without this every
// reconcile of every campaign made that round trip to the API server, two
// or three times. A rotated key is seen sooner: a store that refuses the
// old one makes the reconcile read the Secret again (forget).
const secretTTL = time.Minute

// cachedReader keeps each object it reads for a while; read errors are
// not kept, so a Secret created after the campaign is found at once.
type cachedReader struct {
	client.Reader
	ttl time.Duration
	now func() time.Time

	mu   sync.Mutex
	seen map[cachedKey]cachedObject
}

type cachedKey struct {
	kind reflect.Type
	key  client.ObjectKey
}

type cachedObject struct {
	obj  client.Object
	read time.Time
}

func newCachedReader(r client.Reader, ttl time.Duration, now func() time.Time) *cachedReader {
	if now == nil {
		now = time.Now
	}
	return &cachedReader{Reader: r, ttl: ttl, now: now, seen: map[cachedKey]cachedObject{}}
}

func (c *cachedReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	k := cachedKey{kind: reflect.TypeOf(obj), key: key}
	c.mu.Lock()
	got, ok := c.seen[k]
	if ok && c.now().Sub(got.read) < c.ttl {
		c.mu.Unlock()
		reflect.ValueOf(obj).Elem().Set(reflect.ValueOf(got.obj.DeepCopyObject()).Elem())
		return nil
	}
	delete(c.seen, k)
	c.mu.Unlock()
	read := c.now()
	if err := c.Reader.Get(ctx, key, obj, opts...); err != nil {
		return err
	}
	cp, ok := obj.DeepCopyObject().(client.Object)
	if !ok {
		return fmt.Errorf("reading %s: %T is not an object", key, obj)
	}
	c.mu.Lock()
	c.seen[k] = cachedObject{obj: cp, read: read}
	c.mu.Unlock()
	return nil
}

// forget drops what was read in namespace: a store refused the
// credentials, which may have been rotated since.
func (c *cachedReader) forget(namespace string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.seen {
		if k.key.Namespace == namespace {
			delete(c.seen, k)
		}
	}
}
