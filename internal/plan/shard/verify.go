package shard

import (
	"context"
)

// Verified is what Verify found: the input's checksum and how it splits.
type Verified struct {
	SHA256    string
	Size      int64
	Sequences int
	Letters   int64
	Shards    int
}

// Verify reads and validates the whole input as every shard run will,
// and balances it into shards, writing nothing: a pipeline's first step,
// whose SHA256 the shard runs then require (Options.SourceSHA256), so
// every shard is cut from the bytes verified.
func Verify(ctx context.Context, opts Options) (*Verified, error) {
	j, err := newJob(opts)
	if err != nil {
		return nil, err
	}
	if err := j.read(ctx); err != nil {
		return nil, err
	}
	return &Verified{SHA256: j.src.sha256, Size: j.src.size, Sequences: len(j.src.seqs), Letters: j.src.letters, Shards: j.o.Shards}, nil
}
