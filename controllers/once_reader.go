package controllers

import (
	"context"
	"fmt"
	"reflect"
	"sync"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// onceReader reads each object once: a reconcile reads the same credentials
// Secret to open the output store, to check the database's store and to see
// whether the ledger's keys changed, and every read is a round trip to the
// API server (Secrets are read uncached, so the operator needs no list or
// watch on them).
type onceReader struct {
	client.Reader
	mu   sync.Mutex
	seen map[onceKey]onceResult
}

type onceKey struct {
	kind reflect.Type
	key  client.ObjectKey
}

type onceResult struct {
	obj client.Object
	err error
}

func newOnceReader(r client.Reader) *onceReader {
	return &onceReader{Reader: r, seen: map[onceKey]onceResult{}}
}

func (o *onceReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	k := onceKey{kind: reflect.TypeOf(obj), key: key}
	o.mu.Lock()
	defer o.mu.Unlock()
	if got, ok := o.seen[k]; ok {
		if got.err == nil {
			reflect.ValueOf(obj).Elem().Set(reflect.ValueOf(got.obj.DeepCopyObject()).Elem())
		}
		return got.err
	}
	err := o.Reader.Get(ctx, key, obj, opts...)
	if err == nil {
		cp, ok := obj.DeepCopyObject().(client.Object)
		if !ok {
			return fmt.Errorf("reading %s: %T is not an object", key, obj)
		}
		o.seen[k] = onceResult{obj: cp}
	} else if ctx.Err() == nil {
		o.seen[k] = onceResult{err: err}
	}
	return err
}
