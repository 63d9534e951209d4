package faultproxy

import (
	"context"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
)

// getTimed reads key through c and returns how long it took.
func getTimed(t *testing.T, c *minio.Client, key string, onFirst func()) time.Duration {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	o, err := c.GetObject(ctx, bucket, key, minio.GetObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	first := make([]byte, 32<<10)
	if _, err := io.ReadFull(o, first); err != nil {
		t.Fatal(err)
	}
	if onFirst != nil {
		onFirst()
	}
	if _, err := io.Copy(io.Discard, o); err != nil {
		t.Fatal(err)
	}
	return time.Since(start)
}

// TestBandwidth: responses together get the bandwidth, and a change
// applies to a response already flowing.
func TestBandwidth(t *testing.T) {
	_, p, c := setup(t, Faults{Bandwidth: 1 << 20}, 1)
	if err := put(c, "half", make([]byte, 512<<10), false); err != nil {
		t.Fatal(err)
	}
	// Two 512 KiB reads at once share 1 MiB/s: about a second for both.
	var wg sync.WaitGroup
	took := make([]time.Duration, 2)
	for i := range took {
		wg.Add(1)
		go func() {
			defer wg.Done()
			took[i] = getTimed(t, c, "half", nil)
		}()
	}
	wg.Wait()
	for _, d := range took {
		if d < 800*time.Millisecond || d > 5*time.Second {
			t.Errorf("two concurrent 512 KiB reads at 1 MiB/s: one took %s, want about 1s", d)
		}
	}
	n := p.Counts()
	if n.Slowed != 2 || n.ThrottledBytes < 1<<20 {
		t.Errorf("counts %v: want both reads slowed, their bytes paced", n)
	}

	// 6 MiB at 256 KiB/s would take 24s; lifting the throttle after the
	// first bytes lets the rest through at once.
	if err := p.SetFaults(Faults{}); err != nil {
		t.Fatal(err)
	}
	if err := put(c, "big", make([]byte, 6<<20), false); err != nil {
		t.Fatal(err)
	}
	if err := p.SetFaults(Faults{Bandwidth: 256 << 10}); err != nil {
		t.Fatal(err)
	}
	d := getTimed(t, c, "big", func() {
		if err := p.SetFaults(Faults{}); err != nil {
			t.Error(err)
		}
	})
	if d > 3*time.Second {
		t.Errorf("read whose throttle was lifted mid-response took %s", d)
	}
	// And the other way: throttling mid-response slows it. Socket
	// buffers may hold a few MiB sent before the change.
	d = getTimed(t, c, "big", func() {
		if err := p.SetFaults(Faults{Bandwidth: 2 << 20}); err != nil {
			t.Error(err)
		}
	})
	if d < 700*time.Millisecond {
		t.Errorf("6 MiB throttled to 2 MiB/s mid-response took %s", d)
	}
}

// TestAddedLatency: every request waits the fixed latency and is
// counted as slowed; a fault rate of zero draws nothing else.
func TestAddedLatency(t *testing.T) {
	_, p, c := setup(t, Faults{AddedLatency: 150 * time.Millisecond}, 1)
	start := time.Now()
	for i := 0; i < 3; i++ {
		if err := put(c, "k", []byte("x"), false); err != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(start); d < 450*time.Millisecond {
		t.Errorf("3 writes with 150ms added each took %s", d)
	}
	n := p.Counts()
	if n.Slowed != n.Requests || n.Forwarded != n.Requests || n.Faults() != n.Slowed {
		t.Errorf("counts %v: want every request slowed and forwarded, nothing else", n)
	}
	if err := p.SetFaults(Faults{AddedLatency: -time.Second}); err == nil {
		t.Error("a negative latency was accepted")
	}
}
