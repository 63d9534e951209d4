package ledger

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/blastfleet/blastfleet/internal/plan/search"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// forStores runs fn against a directory store and a real MinIO; fresh
// returns an empty campaign prefix each time.
func forStores(t *testing.T, fn func(t *testing.T, fresh func() objstore.Store)) {
	t.Run("dir", func(t *testing.T) {
		n := 0
		fn(t, func() objstore.Store {
			n++
			st, err := objstore.NewDir(filepath.Join(t.TempDir(), fmt.Sprint(n)))
			if err != nil {
				t.Fatal(err)
			}
			return st
		})
	})
	t.Run("minio", func(t *testing.T) {
		m := testenv.StartMinIO(t)
		m.MakeBucket(t, "ledger")
		cfg := objstore.S3Config{Endpoint: m.Host, PathStyle: true, Region: "us-east-1", AccessKey: m.AccessKey, SecretKey: m.SecretKey}
		n := 0
		fn(t, func() objstore.Store {
			n++
			st, err := objstore.NewS3(cfg, "ledger", fmt.Sprintf("campaigns/c%d", n))
			if err != nil {
				t.Fatal(err)
			}
			return st
		})
	})
}

func testPlan(chunks []Chunk) *Plan {
	n := chunks[len(chunks)-1].End
	return &Plan{
		Name:     "test",
		Queries:  Queries{Location: "s3://b/q.fa", SHA256: "aa", Size: 100, Count: n, Letters: 1000},
		Database: Database{Location: "s3://b/db", Name: "db", Type: "prot", ManifestSHA256: "bb"},
		Search:   search.MustParse(search.Request{Program: "blastp", Outfmt: "6", MaxTargetSeqs: 500, Evalue: 10}),
		Chunks:   chunks,
	}
}

// clock is an injectable clock tests move by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// campaign writes a plan into a fresh store and opens a ledger on it.
func campaign(t *testing.T, st objstore.Store, chunks []Chunk, opts Options) *Ledger {
	t.Helper()
	if err := WritePlan(context.Background(), st, testPlan(chunks)); err != nil {
		t.Fatal(err)
	}
	return open(t, st, opts)
}

func open(t *testing.T, st objstore.Store, opts Options) *Ledger {
	t.Helper()
	l, err := Open(context.Background(), st, opts)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func result(r Range) []byte { return fmt.Appendf(nil, "result %s\n", r) }

func commit(t *testing.T, ls *Lease) error {
	t.Helper()
	b := result(ls.Range)
	return ls.Commit(context.Background(), bytes.NewReader(b), int64(len(b)))
}

func acquire(t *testing.T, l *Ledger, holder string) *Lease {
	t.Helper()
	ls, err := l.Acquire(context.Background(), holder)
	if err != nil {
		t.Fatalf("Acquire(%s): %v", holder, err)
	}
	return ls
}

// drain leases and commits chunks until none is left; fail decides which
// ranges fail instead.
func drain(t *testing.T, l *Ledger, holder string, fail func(Range) *FailureReason) {
	t.Helper()
	ctx := context.Background()
	for i := 0; ; i++ {
		if i > 1000 {
			t.Fatal("drain does not end")
		}
		ls, err := l.Acquire(ctx, holder)
		if errors.Is(err, ErrNoChunk) {
			return
		}
		if err != nil {
			t.Fatalf("Acquire: %v", err)
		}
		if f := fail(ls.Range); f != nil {
			if err := ls.Fail(ctx, *f); err != nil {
				t.Fatalf("Fail: %v", err)
			}
			continue
		}
		if err := commit(t, ls); err != nil {
			t.Fatalf("Commit %s: %v", ls.Range, err)
		}
	}
}

func never(Range) *FailureReason { return nil }
