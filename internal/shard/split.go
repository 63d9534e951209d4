package shard

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/blastfleet/blastfleet/internal/fasta"
)

// split writes each shard's FASTA in dir. Records are streamed in input
// order, so each shard's sequences come out in ascending original ordinal:
// the engine relies on shard OID order being the original order.
func split(ctx context.Context, path string, a fasta.Alphabet, src *source, assign []int, dir string, names []shardNames) (err error) {
	files := make([]*os.File, len(names))
	writers := make([]*fasta.Writer, len(names))
	defer func() {
		for _, f := range files {
			if f != nil {
				f.Close()
			}
		}
	}()
	for i, n := range names {
		f, err := os.Create(filepath.Join(dir, n.fasta))
		if err != nil {
			return fmt.Errorf("creating shard FASTA: %w", err)
		}
		files[i], writers[i] = f, fasta.NewWriter(f)
	}
	hr, err := forEachRecord(ctx, path, a, func(rec *fasta.Record) error {
		if rec.Ordinal >= len(assign) {
			return fmt.Errorf("%s changed while building: it now has more than %d sequences", path, len(assign))
		}
		if err := writers[assign[rec.Ordinal]].Write(rec); err != nil {
			return fmt.Errorf("writing %s: %w", names[assign[rec.Ordinal]].fasta, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if hr.sum() != src.sha256 {
		return fmt.Errorf("%s changed while building (SHA-256 differs between reads)", path)
	}
	for i, f := range files {
		if err := writers[i].Flush(); err != nil {
			return fmt.Errorf("writing %s: %w", names[i].fasta, err)
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("writing %s: %w", names[i].fasta, err)
		}
		files[i] = nil
	}
	return nil
}
