package shard

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// requireBLAST skips tests that need BLAST+ when it is missing, unless
// BLASTFLEET_REQUIRE_REAL=1 says a missing BLAST+ is a failure.
func requireBLAST(t *testing.T, programs ...string) {
	t.Helper()
	testenv.RequireTools(t, append([]string{"makeblastdb"}, programs...)...)
}

// countingStore counts Puts, to prove a no-op writes nothing.
type countingStore struct {
	objstore.Store
	puts atomic.Int64
}

func (c *countingStore) Put(ctx context.Context, key string, r io.Reader, size int64) error {
	c.puts.Add(1)
	return c.Store.Put(ctx, key, r, size)
}

func newStore(t *testing.T) (*countingStore, string) {
	t.Helper()
	dir := t.TempDir()
	d, err := objstore.NewDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return &countingStore{Store: d}, dir
}

// synthetic writes a deterministic database: families of mutated copies of
// random sequences (so searches find several related subjects with
// different scores) plus unrelated singletons. It returns the path and the
// family base sequences, from which queries can be derived.
func synthetic(t *testing.T, seed uint64, letters string, families, members, singletons int) (string, [][]byte) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var b strings.Builder
	var bases [][]byte
	n := 0
	for f := range families {
		base := randomSeq(rng, letters, 300+rng.IntN(1500))
		bases = append(bases, base)
		for m := range members {
			seq := mutate(rng, letters, base, 0.02+0.03*float64(m))
			fmt.Fprintf(&b, ">fam%02d_m%d family %d member %d\n", f, m, f, m)
			writeWrapped(&b, seq, 70)
			n++
		}
	}
	for s := range singletons {
		fmt.Fprintf(&b, ">single%03d\n", s)
		writeWrapped(&b, randomSeq(rng, letters, 100+rng.IntN(2500)), 61)
	}
	path := filepath.Join(t.TempDir(), "synth.fa")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, bases
}

func randomSeq(rng *rand.Rand, letters string, n int) []byte {
	s := make([]byte, n)
	for i := range s {
		s[i] = letters[rng.IntN(len(letters))]
	}
	return s
}

// mutate substitutes a fraction of positions and adds a few indels.
func mutate(rng *rand.Rand, letters string, base []byte, rate float64) []byte {
	out := make([]byte, 0, len(base)+16)
	for _, c := range base {
		r := rng.Float64()
		switch {
		case r < rate*0.8:
			out = append(out, letters[rng.IntN(len(letters))])
		case r < rate*0.9: // deletion
		case r < rate:
			out = append(out, c, letters[rng.IntN(len(letters))])
		default:
			out = append(out, c)
		}
	}
	return out
}

func writeWrapped(b *strings.Builder, seq []byte, width int) {
	for len(seq) > 0 {
		n := min(width, len(seq))
		b.Write(seq[:n])
		b.WriteByte('\n')
		seq = seq[n:]
	}
}
