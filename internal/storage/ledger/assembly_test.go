package ledger

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// readCounter counts the bytes read through Get from the chunks' results
// (the parts) and from the assembled result, and the composes (which read
// every part again, server-side), and can slow each part's read down, so
// concurrent assemblers overlap as large results make them.
type readCounter struct {
	objstore.Store
	parts, result, composes atomic.Int64
	delay                   time.Duration
}

func (c *readCounter) Compose(ctx context.Context, dst string, srcs []string) error {
	c.composes.Add(1)
	return c.Store.Compose(ctx, dst, srcs)
}

type countingReader struct {
	io.ReadCloser
	n *atomic.Int64
}

func (r countingReader) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	r.n.Add(int64(n))
	return n, err
}

func (c *readCounter) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	rc, err := c.Store.Get(ctx, key)
	if err != nil {
		return rc, err
	}
	switch {
	case strings.HasPrefix(key, chunksDir):
		time.Sleep(c.delay)
		return countingReader{rc, &c.parts}, nil
	case key == ResultKey:
		return countingReader{rc, &c.result}, nil
	}
	return rc, nil
}

// bigCampaign commits every chunk of a campaign with results of size
// bytes each, and returns the result assembly must produce.
func bigCampaign(t *testing.T, st objstore.Store, chunks, size int) []byte {
	t.Helper()
	ctx := context.Background()
	l := campaign(t, st, ChunkByQueries(chunks, 1), Options{})
	var want bytes.Buffer
	for range chunks {
		ls := acquire(t, l, "p")
		part := bytes.Repeat([]byte(fmt.Sprintf("chunk %s\t", ls.Range)), size)[:size]
		if err := ls.Commit(ctx, bytes.NewReader(part), int64(len(part))); err != nil {
			t.Fatal(err)
		}
		want.Write(part)
	}
	return want.Bytes()
}

// checkAssembled: the store holds want as the result, and assembled.json
// records its size and SHA-256.
func checkAssembled(t *testing.T, st objstore.Store, want []byte) {
	t.Helper()
	ctx := context.Background()
	rc, err := st.Get(ctx, ResultKey)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("the result has %d bytes (%v), want the %d bytes of its parts in order", len(got), err, len(want))
	}
	sum := sha256.Sum256(want)
	asm, err := open(t, st, Options{}).AssembledResult(ctx)
	if err != nil || asm == nil || asm.Size != int64(len(want)) || asm.SHA256 != hex.EncodeToString(sum[:]) {
		t.Fatalf("assembled.json says %+v (%v); want %d bytes with sha256 %x", asm, err, len(want), sum)
	}
}

// TestAssembleOneAtATime: partitions that all find the campaign complete
// at once assemble it once. Each opens its own handle, as partitions do;
// the parts are read by one of them only (1x the result, not N x), the
// composed result checked once, and every caller gets the result.
func TestAssembleOneAtATime(t *testing.T) {
	forStores(t, func(t *testing.T, fresh func() objstore.Store) {
		const partitions, chunks, size = 6, 8, 64 << 10
		st := fresh()
		want := bigCampaign(t, st, chunks, size)
		counters := make([]*readCounter, partitions)
		handles := make([]*Ledger, partitions)
		for i := range handles {
			counters[i] = &readCounter{Store: st, delay: 20 * time.Millisecond}
			handles[i] = open(t, counters[i], Options{})
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		start := make(chan struct{})
		errs := make([]error, partitions)
		var wg sync.WaitGroup
		for i, l := range handles {
			wg.Go(func() {
				<-start
				var key string
				key, errs[i] = l.Assemble(ctx)
				if errs[i] == nil && key != ResultKey {
					errs[i] = fmt.Errorf("key %q", key)
				}
			})
		}
		close(start)
		wg.Wait()
		var parts, result, composes int64
		readers := 0
		for i, c := range counters {
			if errs[i] != nil {
				t.Errorf("partition %d: Assemble: %v", i, errs[i])
			}
			parts += c.parts.Load()
			result += c.result.Load()
			composes += c.composes.Load()
			if c.parts.Load() > 0 {
				readers++
			}
		}
		t.Logf("%d partitions assembling a %d-byte result read %d bytes of parts (%.2fx), composed it %d times and read %d bytes of it back (%.2fx); %d of them read parts",
			partitions, len(want), parts, float64(parts)/float64(len(want)), composes, result, float64(result)/float64(len(want)), readers)
		if parts != int64(len(want)) || readers != 1 {
			t.Errorf("%d partitions read %d bytes of parts (%d of them read any); want the %d bytes once, by one", partitions, parts, readers, len(want))
		}
		if result != int64(len(want)) || composes != 1 {
			t.Errorf("the result was composed %d times and read back %d bytes; want once, %d bytes", composes, result, len(want))
		}
		checkAssembled(t, st, want)
	})
}

// cutAfterCompose is an assembler's store that loses touch for good once
// it has composed the result: it dies mid-way, before the done marker,
// holding the assembly lease it can no longer release.
type cutAfterCompose struct {
	objstore.Store
	cut atomic.Bool
}

var errCut = errors.New("the assembler lost touch with the store")

func (c *cutAfterCompose) Compose(ctx context.Context, dst string, srcs []string) error {
	if c.cut.Load() {
		return errCut
	}
	err := c.Store.Compose(ctx, dst, srcs)
	c.cut.Store(true)
	return err
}

func (c *cutAfterCompose) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	if c.cut.Load() {
		return nil, errCut
	}
	return c.Store.Get(ctx, key)
}

func (c *cutAfterCompose) GetBytes(ctx context.Context, key string) ([]byte, string, error) {
	if c.cut.Load() {
		return nil, "", errCut
	}
	return c.Store.GetBytes(ctx, key)
}

func (c *cutAfterCompose) Put(ctx context.Context, key string, r io.Reader, size int64) error {
	if c.cut.Load() {
		return errCut
	}
	return c.Store.Put(ctx, key, r, size)
}

func (c *cutAfterCompose) PutIfAbsent(ctx context.Context, key string, data []byte) (string, error) {
	if c.cut.Load() {
		return "", errCut
	}
	return c.Store.PutIfAbsent(ctx, key, data)
}

func (c *cutAfterCompose) PutIfMatch(ctx context.Context, key string, data []byte, etag string) (string, error) {
	if c.cut.Load() {
		return "", errCut
	}
	return c.Store.PutIfMatch(ctx, key, data, etag)
}

// TestAssemblyTakeover: an assembler that dies after composing, before
// its done marker, holds the assembly lease. Another partition reads no
// part while that lease lives, takes it over once it stayed unchanged for
// lease + skew on its own clock, and assembles the same bytes; the dead
// one's leftover result (here corrupted too) is redone, not trusted.
func TestAssemblyTakeover(t *testing.T) {
	forStores(t, func(t *testing.T, fresh func() objstore.Store) {
		const chunks, size = 4, 16 << 10
		st := fresh()
		want := bigCampaign(t, st, chunks, size)
		ctx := context.Background()

		dead := open(t, &cutAfterCompose{Store: st}, Options{})
		if _, err := dead.Assemble(ctx); !errors.Is(err, errCut) {
			t.Fatalf("the dying assembler's Assemble = %v, want it cut off", err)
		}
		if asm, err := open(t, st, Options{}).AssembledResult(ctx); err != nil || asm != nil {
			t.Fatalf("done marker %+v, %v after the assembler died; want none", asm, err)
		}
		junk := []byte("half a result")
		if err := st.Put(ctx, ResultKey, bytes.NewReader(junk), int64(len(junk))); err != nil {
			t.Fatal(err)
		}

		clk := newClock()
		c := &readCounter{Store: st}
		next := open(t, c, Options{Now: clk.Now})
		type answer struct {
			key string
			err error
		}
		done := make(chan answer, 1)
		go func() {
			key, err := next.Assemble(ctx)
			done <- answer{key, err}
		}()
		pol := next.policy()
		select {
		case a := <-done:
			t.Fatalf("Assemble returned %q, %v while the dead assembler's lease was live; want it waiting", a.key, a.err)
		case <-time.After(time.Second):
		}
		clk.Advance(pol.Lease() + pol.Skew() - time.Second)
		select {
		case a := <-done:
			t.Fatalf("Assemble returned %q, %v a second before the lease could be taken over", a.key, a.err)
		case <-time.After(3 * time.Second): // over a poll, jitter included
		}
		if n := c.parts.Load(); n != 0 {
			t.Fatalf("the waiting partition read %d bytes of parts under another's live lease", n)
		}
		clk.Advance(2 * time.Second)
		select {
		case a := <-done:
			if a.err != nil || a.key != ResultKey {
				t.Fatalf("Assemble after the lease expired = %q, %v", a.key, a.err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the expired assembly lease was not taken over")
		}
		if n := c.parts.Load(); n != int64(len(want)) {
			t.Errorf("the new assembler read %d bytes of parts, want %d", n, len(want))
		}
		checkAssembled(t, st, want)
		data, _, err := st.GetBytes(ctx, "assembling.json")
		if err != nil || !strings.Contains(string(data), `"released":true`) {
			t.Errorf("the assembly lease after the takeover: %s, %v; want it released by its new holder", data, err)
		}
	})
}
