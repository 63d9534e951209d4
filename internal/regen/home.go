package regen

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/blastfleet/blastfleet/internal/blastdoc"
	"github.com/blastfleet/blastfleet/internal/cache"
	"github.com/blastfleet/blastfleet/internal/manifest"
)

// Home regenerates, where the results are wanted, the output of a search
// whose partitions committed metadata (ParaMEDIC): each query's line
// names its kept subjects, and the query is searched again against them,
// in the shards fetched into a local cache, for the output in the search's
// format. The output equals what the partitions would have committed.
type Home struct {
	DB    *manifest.Manifest
	Cache *cache.Cache
	// Search is the campaign's search; its format may be tabular.
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
// returns how many queries it wrote.
func (h *Home) Write(ctx context.Context, in io.Reader, out io.Writer) (int, error) {
	h.ids = map[int]map[int64][]string{}
	db := Database{Name: h.DB.Name, Title: h.DB.Title, Type: h.DB.Type, Sequences: h.DB.Sequences, Letters: h.DB.Letters, Date: DatabaseDate(h.DB.Shards)}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	n := 0
	for sc.Scan() {
		md, err := ParseMetadata(sc.Bytes())
		if err != nil {
			return n, err
		}
		piece, err := h.regenerate(ctx, db, md)
		if err != nil {
			return n, fmt.Errorf("query %d (%s): %w", md.Index, md.Query, err)
		}
		if _, err := out.Write(piece); err != nil {
			return n, err
		}
		n++
		if h.Progress != nil {
			h.Progress(n)
		}
	}
	return n, sc.Err()
}

func (h *Home) regenerate(ctx context.Context, db Database, md Metadata) ([]byte, error) {
	if md.Index > h.Total {
		return nil, fmt.Errorf("index %d past the search's %d queries", md.Index, h.Total)
	}
	query, err := h.Query(md.Index)
	if err != nil {
		return nil, err
	}
	subjects := make([]Subject, len(md.Subjects))
	held := map[int]bool{}
	defer func() {
		for s := range held {
			h.Cache.Release(s)
		}
	}()
	for i, s := range md.Subjects {
		if s.Shard >= len(h.DB.Shards) {
			return nil, fmt.Errorf("shard %d: the database has %d", s.Shard, len(h.DB.Shards))
		}
		sh := h.DB.Shards[s.Shard]
		if !held[s.Shard] {
			if _, err := h.Cache.Acquire(ctx, s.Shard); err != nil {
				return nil, fmt.Errorf("fetching shard %s: %w", sh.Name, err)
			}
			held[s.Shard] = true
		}
		ids, ok := h.ids[s.Shard]
		if !ok {
			if ids, err = ReadIDs(filepath.Join(h.Cache.Dir(), sh.IDsFile)); err != nil {
				return nil, err
			}
			h.ids[s.Shard] = ids
		}
		id, ok := ids[s.Ordinal]
		if !ok {
			return nil, fmt.Errorf("shard %s has no subject of ordinal %d", sh.Name, s.Ordinal)
		}
		subjects[i] = Subject{DB: filepath.Join(h.Cache.Dir(), sh.DBName), IDs: id, Ordinal: s.Ordinal}
	}
	doc, err := Report(ctx, filepath.Join(h.Cache.Dir(), "regen"), db, h.Search, query, subjects)
	if err != nil {
		return nil, err
	}
	if !h.Search.Format.Regenerated() {
		return doc, nil // tabular: BLAST's lines are the output
	}
	return blastdoc.Piece(h.Search.Format.Code, doc, md.Index, h.Total)
}
