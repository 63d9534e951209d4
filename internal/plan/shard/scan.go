package shard

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"

	"github.com/blastfleet/blastfleet/internal/bio/fasta"
)

// seqInfo is what the build keeps per sequence: enough to balance and to
// write the ids files, without holding the sequences in memory.
type seqInfo struct {
	id      string
	letters int64
}

// source is the validated input: its sequences by ordinal and its identity.
type source struct {
	seqs    []seqInfo
	letters int64
	sha256  string
	size    int64
}

// hashingReader hashes and counts the raw bytes (compressed, for gzip), so
// the input's identity is the file as stored.
type hashingReader struct {
	r io.Reader
	h hash.Hash
	n int64
}

func (hr *hashingReader) Read(p []byte) (int, error) {
	n, err := hr.r.Read(p)
	hr.h.Write(p[:n])
	hr.n += int64(n)
	return n, err
}

func (hr *hashingReader) sum() string { return hex.EncodeToString(hr.h.Sum(nil)) }

// forEachRecord streams the input's records to fn and returns the hashing
// reader, drained, so its sum covers the whole file.
func forEachRecord(ctx context.Context, path string, a fasta.Alphabet, fn func(*fasta.Record) error) (*hashingReader, error) {
	f, err := openInput(ctx, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	hr := &hashingReader{r: f, h: sha256.New()}
	rd, err := fasta.NewReader(hr, path, a)
	if err != nil {
		return nil, err
	}
	for n := 0; ; n++ {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if err := fn(rec); err != nil {
			return nil, err
		}
	}
	if _, err := io.Copy(io.Discard, hr); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return hr, nil
}

// scan reads and validates the whole input before anything is written.
func scan(ctx context.Context, path string, a fasta.Alphabet) (*source, error) {
	src := &source{}
	hr, err := forEachRecord(ctx, path, a, func(rec *fasta.Record) error {
		src.seqs = append(src.seqs, seqInfo{id: rec.ID, letters: int64(len(rec.Seq))})
		src.letters += int64(len(rec.Seq))
		return nil
	})
	if err != nil {
		return nil, err
	}
	src.sha256, src.size = hr.sum(), hr.n
	return src, nil
}
