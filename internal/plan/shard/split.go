package shard

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/blastfleet/blastfleet/internal/bio/fasta"
)

// split writes the FASTA of each shard in ids into dir; records of other
// shards are read and skipped (a shard-index run writes only its own).
// Records are streamed in input order, so each shard's sequences come out
// in ascending original ordinal: the engine relies on shard OID order being
// the original order.
func split(ctx context.Context, path string, a fasta.Alphabet, src *source, p *plan, ids []int, dir string) (err error) {
	files := make([]*os.File, len(p.shards))
	writers := make([]*fasta.Writer, len(p.shards))
	defer func() {
		for _, f := range files {
			if f != nil {
				f.Close()
			}
		}
	}()
	for _, i := range ids {
		f, err := os.Create(filepath.Join(dir, p.shards[i].names.fasta))
		if err != nil {
			return fmt.Errorf("creating shard FASTA: %w", err)
		}
		files[i], writers[i] = f, fasta.NewWriter(f)
	}
	hr, err := forEachRecord(ctx, path, a, func(rec *fasta.Record) error {
		if rec.Ordinal >= len(p.assign) {
			return fmt.Errorf("%s changed while building: it now has more than %d sequences", path, len(p.assign))
		}
		w := writers[p.assign[rec.Ordinal]]
		if w == nil {
			return nil
		}
		if err := w.Write(rec); err != nil {
			return fmt.Errorf("writing %s: %w", p.shards[p.assign[rec.Ordinal]].names.fasta, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if hr.sum() != src.sha256 {
		return fmt.Errorf("%s changed while building (SHA-256 differs between reads)", path)
	}
	for _, i := range ids {
		if err := writers[i].Flush(); err != nil {
			return fmt.Errorf("writing %s: %w", p.shards[i].names.fasta, err)
		}
		if err := files[i].Close(); err != nil {
			return fmt.Errorf("writing %s: %w", p.shards[i].names.fasta, err)
		}
		files[i] = nil
	}
	return nil
}
