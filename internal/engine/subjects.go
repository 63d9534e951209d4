package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/blastfleet/blastfleet/internal/engine/regen"
)

// acquireShards holds shards in the worker's cache (fetching those it
// lacks) until release is called; with ordinals, it also returns each
// shard's ids map, to read BLAST's sseqids by. On error nothing is held.
func (w *worker) acquireShards(ctx context.Context, shards []int, ordinals bool) (maps []map[string]int64, release func(), err error) {
	var held []int
	release = func() {
		for _, s := range held {
			w.cache.Release(s)
		}
	}
	for _, s := range shards {
		if _, err := w.cache.Acquire(ctx, s); err != nil {
			release()
			return nil, nil, fmt.Errorf("fetching shard %d: %w", s, err)
		}
		held = append(held, s)
		if !ordinals {
			continue
		}
		ids, err := w.shardOrdinals(s)
		if err != nil {
			release()
			return nil, nil, err
		}
		maps = append(maps, ids)
	}
	return maps, release, nil
}

// subjectShards are the shards holding the subjects of a regeneration or
// a tie-break search, in id order.
func subjectShards(qs []regenQuery) []int {
	var shards []int
	for _, q := range qs {
		for _, s := range q.Subjects {
			if !slices.Contains(shards, int(s.Shard)) {
				shards = append(shards, int(s.Shard))
			}
		}
	}
	slices.Sort(shards)
	return shards
}

// beginBlockTask starts the result of a regeneration or tie-break search
// and cuts its block into query records, one per query of its request.
func beginBlockTask(a *assignMsg) (taskResult, [][]byte, error) {
	r := taskResult{assign: a, started: time.Now()}
	queries := splitBlock(a.FASTA)
	if len(queries) != len(a.Regen) {
		return r, nil, fmt.Errorf("block %d: %d queries in its FASTA, %d in its request", a.Block, len(queries), len(a.Regen))
	}
	return r, queries, nil
}

// regenSubjects are a query's subjects as package regen finds them: in
// their shard's BLAST DB, by the ids of its ids file.
func (w *worker) regenSubjects(q regenQuery) ([]regen.Subject, error) {
	subjects := make([]regen.Subject, len(q.Subjects))
	for j, s := range q.Subjects {
		id, err := w.subjectID(int(s.Shard), s.Ordinal)
		if err != nil {
			return nil, err
		}
		subjects[j] = regen.Subject{DB: filepath.Join(w.dir, w.db.Shards[s.Shard].DBName), IDs: id, Ordinal: s.Ordinal}
	}
	return subjects, nil
}
