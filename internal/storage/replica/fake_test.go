package replica

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// fakeStore serves objects from memory, as slow as a test wants: a
// latency before a read's first byte and a bandwidth per request. Only
// Get and GetRange work; the rest of Store is nil and would panic.
type fakeStore struct {
	objstore.Store
	data map[string][]byte

	mu        sync.Mutex
	latency   time.Duration
	bandwidth float64 // bytes per second per request; 0 is unlimited
	fail      error   // every read fails with it
	stallNext time.Duration
	requests  int
	active    int // readers open
	maxActive int
}

func newFake(data map[string][]byte) *fakeStore { return &fakeStore{data: data} }

func (f *fakeStore) set(fn func(*fakeStore)) {
	f.mu.Lock()
	fn(f)
	f.mu.Unlock()
}

func (f *fakeStore) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	return f.read(ctx, key, 0, -1)
}

func (f *fakeStore) GetRange(ctx context.Context, key string, off, n int64) (io.ReadCloser, error) {
	return f.read(ctx, key, off, n)
}

func (f *fakeStore) URL(key string) string { return "fake://" + key }

func (f *fakeStore) read(ctx context.Context, key string, off, n int64) (io.ReadCloser, error) {
	f.mu.Lock()
	f.requests++
	lat, bw, fail, stall := f.latency, f.bandwidth, f.fail, f.stallNext
	f.stallNext = 0
	f.mu.Unlock()
	if err := wait(ctx, lat+stall); err != nil {
		return nil, err
	}
	if fail != nil {
		return nil, fail
	}
	b, ok := f.data[key]
	if !ok {
		return nil, fmt.Errorf("fake://%s: %w", key, objstore.ErrNotExist)
	}
	if n < 0 {
		n = int64(len(b))
	}
	b = b[off:min(off+n, int64(len(b)))]
	var d time.Duration
	if bw > 0 {
		d = time.Duration(float64(len(b)) / bw * float64(time.Second))
	}
	f.mu.Lock()
	f.active++
	f.maxActive = max(f.maxActive, f.active)
	f.mu.Unlock()
	return &slowReader{ctx: ctx, r: bytes.NewReader(b), d: d, f: f}, nil
}

// slowReader waits its transfer time before its first byte.
type slowReader struct {
	ctx    context.Context
	r      io.Reader
	d      time.Duration
	waited bool
	f      *fakeStore
}

func (s *slowReader) Read(p []byte) (int, error) {
	if !s.waited {
		s.waited = true
		if err := wait(s.ctx, s.d); err != nil {
			return 0, err
		}
	}
	return s.r.Read(p)
}

func (s *slowReader) Close() error {
	s.f.set(func(f *fakeStore) { f.active-- })
	return nil
}

func wait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// onceWriter is a WriterAt that fails a test writing any byte twice.
type onceWriter struct {
	mu      sync.Mutex
	t       *testing.T
	buf     []byte
	written []bool
}

func newOnceWriter(t *testing.T, size int) *onceWriter {
	return &onceWriter{t: t, buf: make([]byte, size), written: make([]bool, size)}
}

func (w *onceWriter) WriteAt(p []byte, off int64) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := range p {
		if w.written[off+int64(i)] {
			w.t.Errorf("byte %d written twice", off+int64(i))
			break
		}
		w.written[off+int64(i)] = true
	}
	copy(w.buf[off:], p)
	return len(p), nil
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

// logs collects a Set's log lines.
type logs struct {
	mu    sync.Mutex
	lines []string
}

func (l *logs) logger() logr.Logger {
	return funcr.New(func(prefix, args string) {
		l.mu.Lock()
		l.lines = append(l.lines, args)
		l.mu.Unlock()
	}, funcr.Options{})
}

func (l *logs) has(msg string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range l.lines {
		if strings.Contains(line, `"msg"="`+msg+`"`) {
			return true
		}
	}
	return false
}

// fetchAll fetches key from s and checks the bytes.
func fetchAll(t *testing.T, s *Set, key string, want []byte) time.Duration {
	t.Helper()
	took, err := fetchChecked(t, s, key, want)
	if err != nil {
		t.Fatal(err)
	}
	return took
}

// fetchChecked fetches key and compares the bytes with want; it does not
// stop the test, so other goroutines may call it.
func fetchChecked(t *testing.T, s *Set, key string, want []byte) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	w := newOnceWriter(t, len(want))
	start := time.Now()
	if err := s.Fetch(ctx, key, int64(len(want)), w); err != nil {
		return 0, fmt.Errorf("Fetch(%s): %w", key, err)
	}
	if !bytes.Equal(w.buf, want) {
		return 0, fmt.Errorf("Fetch(%s): bytes differ from the object's", key)
	}
	return time.Since(start), nil
}

// byName is a Set's stats by replica name.
func byName(s *Set) map[string]Stats {
	out := map[string]Stats{}
	for _, st := range s.Stats() {
		out[st.Name] = st
	}
	return out
}
