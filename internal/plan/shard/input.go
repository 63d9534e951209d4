package shard

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// openInput opens the FASTA at a local path or s3://bucket/key. An object
// is streamed, not downloaded: the build reads it twice (scan, then split),
// and streaming keeps a shard-index pod's disk use to its own shard rather
// than a copy of the whole input. The second read is checked against the
// first's SHA-256, so an object replaced in between is caught.
func openInput(ctx context.Context, input string) (io.ReadCloser, error) {
	if !strings.HasPrefix(input, "s3://") {
		f, err := os.Open(input)
		if err != nil {
			return nil, fmt.Errorf("opening input: %w", err)
		}
		return f, nil
	}
	st, key, err := objstore.OpenObject(ctx, input)
	if err != nil {
		return nil, fmt.Errorf("opening input: %w", err)
	}
	rc, err := st.Get(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("opening input: %w", err)
	}
	return rc, nil
}
