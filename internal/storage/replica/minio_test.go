package replica

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/faultproxy"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// s3Replica is one MinIO server holding the database, reached through a
// fault proxy so a test can make it a hot spot or cut it off.
type s3Replica struct {
	m     *testenv.MinIO
	proxy *faultproxy.Proxy
	src   Source
}

// startS3Replica starts MinIO with data at blastdb/build/key, and a proxy.
// The Source is a folder of the bucket, as a database build is.
func startS3Replica(t *testing.T, name, key string, data []byte) *s3Replica {
	t.Helper()
	m := testenv.StartMinIO(t)
	m.MakeBucket(t, "blastdb")
	cfg := objstore.S3Config{Endpoint: m.Host, PathStyle: true, Region: "us-east-1", AccessKey: m.AccessKey, SecretKey: m.SecretKey}
	direct, err := objstore.NewS3(cfg, "blastdb", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := direct.Put(context.Background(), "build/"+key, bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatal(err)
	}
	p, err := faultproxy.Start(m.Endpoint, 1, faultproxy.Faults{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	cfg.Endpoint = p.Host
	viaProxy, err := objstore.NewS3(cfg, "blastdb", "")
	if err != nil {
		t.Fatal(err)
	}
	st, err := objstore.Prefixed(viaProxy, "build")
	if err != nil {
		t.Fatal(err)
	}
	return &s3Replica{m: m, proxy: p, src: Source{Name: name, Store: st}}
}

func (r *s3Replica) throttle(t *testing.T, f faultproxy.Faults) {
	t.Helper()
	if err := r.proxy.SetFaults(f); err != nil {
		t.Fatal(err)
	}
}

// fetchAsync starts a fetch and returns where its time comes.
func fetchAsync(t *testing.T, s *Set, key string, want []byte) <-chan time.Duration {
	done := make(chan time.Duration, 1)
	go func() {
		took, err := fetchChecked(t, s, key, want)
		if err != nil {
			t.Error(err)
		}
		done <- took
	}()
	return done
}

// waitPieces waits until replica name has read at least n pieces.
func waitPieces(t *testing.T, s *Set, name string, n int64) {
	t.Helper()
	testenv.Eventually(t, name+" to read a piece", 10*time.Second, 5*time.Millisecond, func() (bool, string) {
		st := byName(s)[name]
		return st.Pieces >= n, s.String()
	})
}

// TestMinIOReplicas: two MinIO servers hold the same shard file. Both
// serve pieces; one made a hot spot mid-fetch (bandwidth cut, latency
// added at its proxy) is skipped and the skip recorded, then probed and
// taken back once well; one stopped mid-fetch costs no error.
func TestMinIOReplicas(t *testing.T) {
	const key = "shard-000.nsq"
	data := randomBytes(24 << 20)
	a := startS3Replica(t, "minio-a", key, data)
	b := startS3Replica(t, "minio-b", key, data)
	var l logs
	opts := Options{PieceSize: 1 << 20, CoolDown: time.Second, Log: l.logger()}
	s := New([]Source{a.src, b.src}, opts)

	fetchAll(t, s, key, data)
	st := byName(s)
	if st["minio-a"].Pieces == 0 || st["minio-b"].Pieces == 0 {
		t.Fatalf("healthy replicas: %s; want both to serve pieces", s)
	}

	// Both links at 16 MiB/s: two replicas read twice as fast as one
	// (CEFT's doubled read parallelism), and a fetch lasts long enough to
	// turn b into a hot spot while it runs.
	link := faultproxy.Faults{Bandwidth: 16 << 20}
	a.throttle(t, link)
	b.throttle(t, link)
	alone := fetchAll(t, New([]Source{a.src}, opts), key, data)
	both := fetchAll(t, s, key, data)
	t.Logf("24 MiB over 16 MiB/s links: one replica %s, two %s (%.2fx)", alone.Round(time.Millisecond), both.Round(time.Millisecond), both.Seconds()/alone.Seconds())
	if both.Seconds() > 0.7*alone.Seconds() {
		t.Errorf("two healthy replicas took %s, one %s: want about half", both, alone)
	}
	before := byName(s)["minio-b"]
	done := fetchAsync(t, s, key, data)
	waitPieces(t, s, "minio-b", before.Pieces+1)
	b.throttle(t, faultproxy.Faults{Bandwidth: 256 << 10, AddedLatency: 100 * time.Millisecond})
	took := <-done
	hot := byName(s)["minio-b"]
	if hot.SkipCount != before.SkipCount+1 || !strings.HasPrefix(hot.Skips[len(hot.Skips)-1].Why, "skipped: ") {
		t.Fatalf("hot spot: %s; want minio-b skipped once", s)
	}
	if !l.has("replica skipped") {
		t.Error("the skip was not logged")
	}
	// 24 MiB from a alone at 16 MiB/s is 1.5s; b at 256 KiB/s would
	// need more than a minute for its half.
	if took > 8*time.Second {
		t.Errorf("fetch with a hot spot took %s: %s", took, s)
	}
	t.Logf("hot spot mid-fetch: %s; %s", took.Round(time.Millisecond), s)

	// Well again: after the cool-down a probe takes it back.
	b.throttle(t, link)
	time.Sleep(opts.CoolDown)
	fetchAll(t, s, key, data)
	if back := byName(s)["minio-b"]; back.State != "healthy" || back.Pieces < hot.Pieces+2 || !l.has("replica recovered") {
		t.Errorf("after its cool-down: %s; want minio-b healthy and reading", s)
	}

	// Stopped mid-fetch: its pieces go to a, the fetch succeeds.
	before = byName(s)["minio-b"]
	done = fetchAsync(t, s, key, data)
	waitPieces(t, s, "minio-b", before.Pieces+1)
	b.m.Stop(t)
	took = <-done
	if down := byName(s)["minio-b"]; down.Errors == 0 && down.HedgesLost == before.HedgesLost {
		t.Errorf("stopped replica: %s; want its reads failed or hedged", s)
	}
	t.Logf("replica stopped mid-fetch: %s; %s", took.Round(time.Millisecond), s)
}
