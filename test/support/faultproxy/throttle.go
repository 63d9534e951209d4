package faultproxy

import (
	"context"
	"net/http"
	"time"
)

// Pacing writes a response in slices so a body is spread over time, not
// sent in one burst after a long wait; slices are about 1/50 s of
// bandwidth, kept between 512 bytes and 32 KiB.
const (
	minSlice   = 512
	maxSlice   = 32 << 10
	slicesPerS = 50
)

// reserve books n bytes on the proxy's shared link and returns how long
// the caller waits before sending them (0 when unthrottled): the bytes
// leave at the end of their slot, so all responses together get the
// bandwidth.
func (p *Proxy) reserve(n int) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	bw := p.plan.faults.Bandwidth
	if bw <= 0 {
		return 0
	}
	now := time.Now()
	if p.linkFree.Before(now) {
		p.linkFree = now
	}
	p.linkFree = p.linkFree.Add(time.Duration(float64(n) / float64(bw) * float64(time.Second)))
	p.counts.ThrottledBytes += int64(n)
	return p.linkFree.Sub(now)
}

// sliceSize is the slice for the bandwidth now, 0 when unthrottled.
func (p *Proxy) sliceSize() int {
	p.mu.Lock()
	bw := p.plan.faults.Bandwidth
	p.mu.Unlock()
	if bw <= 0 {
		return 0
	}
	return int(min(max(bw/slicesPerS, minSlice), maxSlice))
}

// throttled paces a response body through the proxy's link. It checks
// the bandwidth on every write, so a throttle set mid-response slows the
// rest of it.
type throttled struct {
	http.ResponseWriter
	p      *Proxy
	ctx    context.Context
	slowed bool // counted in Counts.Slowed already
}

func (w *throttled) Write(b []byte) (int, error) {
	written := 0
	for len(b) > 0 {
		slice := w.p.sliceSize()
		if slice == 0 {
			n, err := w.ResponseWriter.Write(b)
			return written + n, err
		}
		if !w.slowed {
			w.slowed = true
			w.p.count(func(c *Counts) { c.Slowed++ })
		}
		k := min(slice, len(b))
		if err := sleep(w.ctx, w.p.reserve(k)); err != nil {
			return written, err
		}
		n, err := w.ResponseWriter.Write(b[:k])
		written += n
		if err != nil {
			return written, err
		}
		b = b[k:]
	}
	return written, nil
}

// Unwrap lets http.ResponseController reach the real writer (to flush).
func (w *throttled) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// sleep waits d or until ctx ends (the client gave up). Since Go 1.23
// an unfired time.After timer is collected, so nothing leaks.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
