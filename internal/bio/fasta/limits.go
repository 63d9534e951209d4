package fasta

import (
	"fmt"
	"io"
)

// Limits bound what one input may make a reader hold, so a malformed or
// hostile file fails with an error naming the place instead of exhausting
// a worker's memory.
type Limits struct {
	// MaxSequence is the most letters one record may hold: BLAST+ keeps a
	// sequence's length in a 32-bit signed integer, so longer ones would
	// only fail later, in makeblastdb or BLAST.
	MaxSequence int64
	// MaxLine is the most bytes one line may hold (an unwrapped sequence
	// is one line, so it must allow MaxSequence).
	MaxLine int64
	// MaxGzipRatio is how many times its compressed size a gzip stream
	// may expand to (checked past gzipGrace bytes); deflate cannot exceed
	// about 1032x, real FASTA stays far below it. 0: unchecked.
	MaxGzipRatio float64
}

// DefaultLimits are BLAST's own sequence limit and a gzip ratio no FASTA
// reaches but runs of one letter do.
var DefaultLimits = Limits{MaxSequence: 1<<31 - 1, MaxLine: 1 << 31, MaxGzipRatio: 250}

// gzipGrace is how much a gzip stream may expand before its ratio is
// judged: a small file's header and first block say little.
var gzipGrace int64 = 64 << 20

// SetLimits replaces the reader's limits (DefaultLimits by default).
func (r *Reader) SetLimits(l Limits) {
	r.limits = l
	if r.inflated != nil {
		r.inflated.maxRatio = l.MaxGzipRatio
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// ratioReader fails once the decompressed stream outgrows maxRatio times
// the compressed bytes read so far.
type ratioReader struct {
	r          io.Reader
	compressed *countingReader
	n          int64
	maxRatio   float64
}

// errGzipRatio is wrapped with the place by the reader.
type errGzipRatio struct {
	inflated, compressed int64
	max                  float64
}

func (e *errGzipRatio) Error() string {
	return fmt.Sprintf("gzip stream expands more than %gx (%d bytes from %d compressed): refusing it as a decompression bomb", e.max, e.inflated, e.compressed)
}

func (z *ratioReader) Read(p []byte) (int, error) {
	n, err := z.r.Read(p)
	z.n += int64(n)
	if z.maxRatio > 0 && z.n > gzipGrace && float64(z.n) > z.maxRatio*float64(max(z.compressed.n, 1)) {
		return n, &errGzipRatio{inflated: z.n, compressed: z.compressed.n, max: z.maxRatio}
	}
	return n, err
}
