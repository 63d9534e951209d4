package regen

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/storage/cache"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
)

// Home regenerates, where the results are wanted, the output of a search
// whose partitions committed metadata (ParaMEDIC): each query's line
// names its kept subjects, and the query is searched again against them,
// in the shards fetched into a local cache, for the output in the search's
// format, in the batches the partitions searched it in (Metadata.Batch). The output equals what the partitions would have committed.
type Home struct {
	DB    *manifest.Manifest
	Cache *cache.Cache
	// Search is the campaign's search; its format may be tabular. Its
	// BatchLetters are the search's B.
	Search Search
	// Query returns query index's (from 1) FASTA record.
	Query func(index int) ([]byte, error)
	// Total is the number of queries of the search.
	Total int
	// Progress, if set, hears of every query regenerated.
	Progress func(done int)
	ids      map[int]map[int64][]string
}

// Write regenerates the metadata lines read from in, in order, to out, and
// returns how many queries it wrote. The lines of one BLAST+ batch are
// regenerated together (Batch), the others each query alone.
func (h *Home) Write(ctx context.Context, in io.Reader, out io.Writer) (int, error) {
	h.ids = map[int]map[int64][]string{}
	db := Database{Name: h.DB.Name, Title: h.DB.Title, Type: h.DB.Type, Sequences: h.DB.Sequences, Letters: h.DB.Letters, Date: DatabaseDate(h.DB.Shards)}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	n := 0
	var batch []Metadata
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		pieces, err := h.regenerate(ctx, db, batch)
		if err != nil {
			if len(batch) == 1 {
				return fmt.Errorf("query %d (%s): %w", batch[0].Index, batch[0].Query, err)
			}
			return fmt.Errorf("queries %d (%s) to %d (%s): %w", batch[0].Index, batch[0].Query, batch[len(batch)-1].Index, batch[len(batch)-1].Query, err)
		}
		for _, p := range pieces {
			if _, err := out.Write(p); err != nil {
				return err
			}
			n++
			if h.Progress != nil {
				h.Progress(n)
			}
		}
		batch = batch[:0]
		return nil
	}
	for sc.Scan() {
		md, err := ParseMetadata(sc.Bytes())
		if err != nil {
			return n, err
		}
		if len(batch) > 0 && (md.Batch == 0 || md.Batch != batch[0].Batch) {
			if err := flush(); err != nil {
				return n, err
			}
		}
		if md.Batch > 0 && len(batch) == 0 && md.Batch != md.Index {
			return n, fmt.Errorf("query %d (%s): its batch starts at query %d, whose line is not before it", md.Index, md.Query, md.Batch)
		}
		if len(batch) > 0 && md.Index != batch[len(batch)-1].Index+1 {
			return n, fmt.Errorf("query %d (%s) follows query %d in its batch", md.Index, md.Query, batch[len(batch)-1].Index)
		}
		batch = append(batch, md)
	}
	if err := sc.Err(); err != nil {
		return n, err
	}
	return n, flush()
}

// regenerate regenerates the queries of mds, one BLAST+ batch's or one
// query searched alone, and returns their pieces.
func (h *Home) regenerate(ctx context.Context, db Database, mds []Metadata) ([][]byte, error) {
	s := h.Search
	if mds[0].Batch == 0 {
		s.BatchLetters = blast.Alone
	}
	held := map[int]bool{}
	defer func() {
		for s := range held {
			h.Cache.Release(s)
		}
	}()
	qs := make([]BatchQuery, len(mds))
	for i, md := range mds {
		if md.Index > h.Total {
			return nil, fmt.Errorf("index %d past the search's %d queries", md.Index, h.Total)
		}
		query, err := h.Query(md.Index)
		if err != nil {
			return nil, err
		}
		qs[i] = BatchQuery{FASTA: query, More: md.More, Subjects: make([]Subject, len(md.Subjects))}
		for j, sub := range md.Subjects {
			if qs[i].Subjects[j], err = h.subject(ctx, sub, held); err != nil {
				return nil, err
			}
		}
	}
	return Batch(ctx, filepath.Join(h.Cache.Dir(), "regen"), db, s, qs, mds[0].Index, h.Total)
}

// subject finds a kept subject in its shard, fetched into the cache and
// held (held records it).
func (h *Home) subject(ctx context.Context, s MetaSubject, held map[int]bool) (Subject, error) {
	if s.Shard >= len(h.DB.Shards) {
		return Subject{}, fmt.Errorf("shard %d: the database has %d", s.Shard, len(h.DB.Shards))
	}
	sh := h.DB.Shards[s.Shard]
	if !held[s.Shard] {
		if _, err := h.Cache.Acquire(ctx, s.Shard); err != nil {
			return Subject{}, fmt.Errorf("fetching shard %s: %w", sh.Name, err)
		}
		held[s.Shard] = true
	}
	ids, ok := h.ids[s.Shard]
	if !ok {
		var err error
		if ids, err = ReadIDs(filepath.Join(h.Cache.Dir(), sh.IDsFile)); err != nil {
			return Subject{}, err
		}
		h.ids[s.Shard] = ids
	}
	id, ok := ids[s.Ordinal]
	if !ok {
		return Subject{}, fmt.Errorf("shard %s has no subject of ordinal %d", sh.Name, s.Ordinal)
	}
	return Subject{DB: filepath.Join(h.Cache.Dir(), sh.DBName), IDs: id, Ordinal: s.Ordinal}, nil
}
