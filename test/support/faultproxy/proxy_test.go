package faultproxy

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/blastfleet/blastfleet/test/support/testenv"
)

const bucket = "proxied"

// minioWithBucket starts MinIO with the bucket.
func minioWithBucket(t *testing.T) *testenv.MinIO {
	t.Helper()
	m := testenv.StartMinIO(t)
	m.MakeBucket(t, bucket)
	return m
}

// setup starts MinIO and a proxy in front of it, and returns a client
// through the proxy that tries each request tries times.
func setup(t *testing.T, f Faults, tries int) (*testenv.MinIO, *Proxy, *minio.Client) {
	t.Helper()
	m := minioWithBucket(t)
	p, c := proxied(t, m, f, tries)
	return m, p, c
}

// proxied starts a proxy in front of m, closed when the test ends.
func proxied(t *testing.T, m *testenv.MinIO, f Faults, tries int) (*Proxy, *minio.Client) {
	t.Helper()
	p, err := Start(m.Endpoint, 1, f)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("closing the proxy: %v", err)
		}
	})
	c, err := minio.New(p.Host, &minio.Options{Creds: credentials.NewStaticV4(m.AccessKey, m.SecretKey, ""),
		Region: "us-east-1", BucketLookup: minio.BucketLookupPath, MaxRetries: tries})
	if err != nil {
		t.Fatal(err)
	}
	return p, c
}

func put(c *minio.Client, key string, data []byte, ifAbsent bool) error {
	var o minio.PutObjectOptions
	if ifAbsent {
		o.SetMatchETagExcept("*")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := c.PutObject(ctx, bucket, key, bytes.NewReader(data), int64(len(data)), o)
	return err
}

// stored reads key from MinIO directly, past the proxy (nil if absent).
func stored(t *testing.T, m *testenv.MinIO, key string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	o, err := m.Client(t).GetObject(ctx, bucket, key, minio.GetObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	b, err := io.ReadAll(o)
	if minio.ToErrorResponse(err).Code == "NoSuchKey" {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func preconditionFailed(err error) bool {
	return minio.ToErrorResponse(err).Code == "PreconditionFailed"
}

// TestPassThrough: without faults, signed requests (the client signed
// for the proxy's address) and conditional writes work through the proxy.
func TestPassThrough(t *testing.T) {
	m, p, c := setup(t, Faults{}, 1)
	if err := put(c, "k", []byte("one"), true); err != nil {
		t.Fatalf("create through the proxy: %v", err)
	}
	if err := put(c, "k", []byte("two"), true); !preconditionFailed(err) {
		t.Fatalf("second create through the proxy: %v, want PreconditionFailed", err)
	}
	if got := stored(t, m, "k"); string(got) != "one" {
		t.Fatalf("stored %q, want %q", got, "one")
	}
	n := p.Counts()
	if n.Requests < 2 || n.Forwarded != n.Requests || n.Faults() != 0 {
		t.Fatalf("counts %v: want every request forwarded and no fault", n)
	}
}

// TestLostResponse: the server takes the write, the client hears a
// failure; retried, a conditional create then loses to its own write.
func TestLostResponse(t *testing.T) {
	m := minioWithBucket(t)
	p, once := proxied(t, m, Faults{LostResponse: 1, Max: 1}, 1)
	if err := put(once, "k", []byte("ours"), true); err == nil {
		t.Fatal("the write's response was to be lost, but the client saw success")
	}
	if got := stored(t, m, "k"); string(got) != "ours" {
		t.Fatalf("stored %q: the write should have reached the server", got)
	}
	if n := p.Counts(); n.Lost() != 1 || n.LostConditional != 1 {
		t.Fatalf("counts %v: want one lost response, of a conditional write", n)
	}
	p, retrying := proxied(t, m, Faults{LostResponse: 1, Max: 1}, 3)
	if err := put(retrying, "k2", []byte("ours"), true); !preconditionFailed(err) {
		t.Fatalf("a retried create whose first try landed: %v, want PreconditionFailed", err)
	}
	if got := stored(t, m, "k2"); string(got) != "ours" || p.Counts().LostConditional != 1 {
		t.Fatalf("stored %q, counts %v: want our write stored, its response lost once", got, p.Counts())
	}
}

// TestLostBothWays: lost responses come as cut connections and as 500s.
func TestLostBothWays(t *testing.T) {
	_, p, c := setup(t, Faults{LostResponse: 1}, 1)
	for i := 0; i < 20; i++ {
		if err := put(c, "k", []byte("x"), false); err == nil {
			t.Fatal("a lost response reached the client as success")
		}
	}
	if n := p.Counts(); n.LostCut == 0 || n.Lost5xx == 0 || n.Forwarded != 20 {
		t.Fatalf("counts %v: want both kinds of lost response, every request forwarded", n)
	}
}

// TestBurstAndReset: neither reaches the server.
func TestBurstAndReset(t *testing.T) {
	for _, c := range []struct {
		name string
		f    Faults
		n    func(Counts) int64
	}{
		{"burst", Faults{Burst: 1, BurstLen: 3}, func(n Counts) int64 { return n.BurstAnswers }},
		{"reset", Faults{Reset: 1}, func(n Counts) int64 { return n.Resets }},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, p, cl := setup(t, c.f, 1)
			for i := 0; i < 3; i++ {
				if err := put(cl, "k", []byte("x"), false); err == nil {
					t.Fatalf("request %d succeeded through a %s", i, c.name)
				}
			}
			if stored(t, m, "k") != nil {
				t.Fatalf("a request failed by a %s reached the server", c.name)
			}
			n := p.Counts()
			if c.n(n) != 3 || n.Forwarded != 0 {
				t.Fatalf("counts %v: want 3 %ss and nothing forwarded", n, c.name)
			}
			if c.name == "burst" && n.Bursts != 1 {
				t.Fatalf("counts %v: want one burst of 3", n)
			}
		})
	}
}

// TestLatency delays requests, which still succeed.
func TestLatency(t *testing.T) {
	_, p, c := setup(t, Faults{Latency: 1, MaxLatency: 300 * time.Millisecond}, 1)
	for i := 0; i < 5; i++ {
		if err := put(c, "k", []byte("x"), false); err != nil {
			t.Fatal(err)
		}
	}
	if n := p.Counts(); n.Delays != n.Requests || n.Forwarded != n.Requests {
		t.Fatalf("counts %v: want every request delayed and forwarded", n)
	}
}

// TestSeeded: the same seed gives the same faults in the same order.
func TestSeeded(t *testing.T) {
	f := Faults{LostResponse: 0.1, Burst: 0.05, Latency: 0.2, Reset: 0.05}
	draw := func(seed uint64) []decision {
		p := newPlan(seed, f)
		out := make([]decision, 500)
		for i := range out {
			out[i] = p.next()
		}
		return out
	}
	a, b, other := draw(5), draw(5), draw(6)
	kinds := map[kind]int{}
	same, differ := true, false
	for i := range a {
		same = same && a[i] == b[i]
		differ = differ || a[i] != other[i]
		kinds[a[i].kind]++
	}
	if !same || !differ {
		t.Fatalf("same seed same sequence: %v; another seed differs: %v", same, differ)
	}
	for _, k := range []kind{pass, lostCut, lost5xx, burst, reset} {
		if kinds[k] == 0 {
			t.Errorf("500 draws gave no request of kind %d: %v", k, kinds)
		}
	}
}

// TestCloseLeavesNothing: Close returns with a request in flight, and
// the port no longer answers.
func TestCloseLeavesNothing(t *testing.T) {
	p, err := Start("http://127.0.0.1:1", 1, Faults{Latency: 1, MaxLatency: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	go func() {
		close(started)
		resp, err := http.Get(p.URL + "/x")
		if err == nil {
			resp.Body.Close()
		}
	}()
	<-started
	testenv.Eventually(t, "the request to reach the proxy", 5*time.Second, 10*time.Millisecond, func() (bool, string) {
		return p.Counts().Requests == 1, ""
	})
	done := make(chan error, 1)
	go func() { done <- p.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return with a delayed request in flight")
	}
	conn, err := net.DialTimeout("tcp", p.Host, time.Second)
	if err == nil {
		conn.Close()
		t.Fatal("the proxy's port still accepts connections after Close")
	}
}
