package engine

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/engine/merge"
	"github.com/blastfleet/blastfleet/internal/engine/regen"
)

// Reports (-outfmt 0, 5, 7, 15, 16; and SAM, 17, sam.go) cannot be merged line by line. Their
// blocks are searched as tabular blocks are, for the merge columns; once
// a block is merged its kept subjects are known, and one more task, a
// regeneration, searches each of its BLAST+ batches again against just
// their queries' subjects (regen.Batch) and cuts BLAST's report into the
// queries' pieces of the search's report (package blastdoc). The pieces
// are the block's lines: they are written as tabular lines are, by any
// strategy.

// regenerating: the search's format is a report, or its output is
// metadata (a regeneration task then writes each query's metadata line).
func (m *master) regenerating() bool {
	return m.cfg.Metadata || (m.cfg.Format != nil && m.cfg.Format.Regenerated())
}

// queueRegen queues the regeneration of a block whose search tasks are
// all in: its kept subjects are merged now, and the search's lines,
// which no report needs, are freed.
func (m *master) queueRegen(id int) {
	b := m.blocks[id]
	b.regen = make([]regenQuery, len(b.hits))
	for q, hits := range b.hits {
		kept := merge.Merge(hits, m.mergeOpts)
		m.sum.Hits += int64(len(kept))
		seen := map[int64]bool{}
		for _, h := range kept {
			if !seen[h.Ordinal] {
				seen[h.Ordinal] = true
				b.regen[q].Subjects = append(b.regen[q].Subjects, regenSubject{Shard: int32(h.Shard), Ordinal: h.Ordinal})
			}
		}
		// A query cut to -max_target_seqs subjects may have more (a
		// shard's search is cut too); one that lost a subject in the
		// merge has more.
		b.regen[q].More = len(seen) >= m.cfg.MaxTargetSeqs
		for _, h := range hits {
			b.regen[q].More = b.regen[q].More || !seen[h.Ordinal]
		}
		slices.SortFunc(b.regen[q].Subjects, func(a, c regenSubject) int { return cmp.Compare(a.Ordinal, c.Ordinal) })
	}
	b.hits = make([][]merge.Hit, len(b.hits))
	for _, t := range b.tasks {
		m.releaseNow(t)
	}
	m.regens = append(m.regens, id)
}

// dispatchRegens hands queued regenerations and tie-break searches to
// idle workers first: they hold up the output. Each goes to the idle
// worker that caches most of its subjects' shard groups (Algorithm 1's
// locality).
func (m *master) dispatchRegens() error {
	for len(m.regens) > 0 && len(m.idle) > 0 && !m.syncing() {
		id := m.regens[0]
		m.regens = m.regens[1:]
		b := m.blocks[id]
		if b.unit.failed {
			continue
		}
		work, ties := b.regen, b.ties != nil
		if ties {
			work = b.ties
		}
		need := map[int]bool{}
		for _, q := range work {
			for _, s := range q.Subjects {
				need[m.groupOf(int(s.Shard))] = true
			}
		}
		best, score := 0, -1
		for i, w := range m.idle {
			n := 0
			for g := range need {
				if m.cached[w][g] {
					n++
				}
			}
			if n > score {
				best, score = i, n
			}
		}
		w := m.idle[best]
		m.idle = slices.Delete(m.idle, best, best+1)
		task := len(m.tasks)
		m.tasks = append(m.tasks, taskInfo{block: id, group: -1, worker: w, regen: true, ties: ties})
		a := m.blockAssign(id, b)
		a.Task, a.Group, a.Regen, a.Total, a.Ties = task, -1, work, len(m.queries), ties
		if ties {
			b.ties = nil
		} else {
			b.regenTask, b.regen = task, nil
		}
		m.busy(w, running{started: time.Now()})
		if err := m.send(w, &envelope{Assign: a}); err != nil {
			return err
		}
	}
	return nil
}

// groupOf is the shard group that holds shard s (a map made once).
func (m *master) groupOf(s int) int {
	if m.shardGroup == nil {
		m.shardGroup = map[int]int{}
		for g, shards := range m.groups {
			for _, sh := range shards {
				m.shardGroup[sh] = g
			}
		}
	}
	return m.shardGroup[s]
}

// recordRegen keeps a regeneration's piece sizes (under master-writing,
// the pieces): the block is ready to write.
func (m *master) recordRegen(d *doneMsg, t taskInfo, b *blockState) *unit {
	m.sum.Regenerations++
	if b.unit.failed {
		m.releaseNow(d.Task)
		return nil
	}
	if d.Lines != nil {
		m.held[d.Task] = d.Lines
	}
	m.taskStats.add(m.taskRecord(t, b, d.BlastSeconds))
	b.pieces = make([]int, len(d.Hits))
	for _, h := range d.Hits {
		b.pieces[h.Query] = int(h.Size)
	}
	b.regenerated = true
	return b.unit
}

// runRegenTask regenerates the reports of a block's queries, one BLAST
// run per BLAST+ batch of the block (regen.Batch; each query alone when
// the block's queries were searched alone), and keeps their pieces as the
// task's lines.
func (w *worker) runRegenTask(ctx context.Context, a *assignMsg) taskResult {
	r, queries, err := beginBlockTask(a)
	if err != nil {
		r.err = fmt.Errorf("regenerating: %w", err)
		return r
	}
	ends := regenBatchEnds(queries, a.Batch)
	if w.cfg.Metadata {
		// ParaMEDIC's metadata: the report is regenerated at home.
		r.fetched = r.started
		start := 0
		for i, q := range a.Regen {
			md := regen.Metadata{Index: a.First + i + 1, Query: a.IDs[i]}
			if a.Batch > blast.Alone {
				for i >= ends[0] {
					start, ends = ends[0], ends[1:]
				}
				md.Batch, md.More = a.First+start+1, q.More
			}
			for _, s := range q.Subjects {
				md.Subjects = append(md.Subjects, regen.MetaSubject{Ordinal: s.Ordinal, Shard: int(s.Shard)})
			}
			line := md.Append(nil)
			r.lines = append(r.lines, line)
			r.hits = append(r.hits, hitMeta{Query: int32(i), Size: int32(len(line))})
		}
		r.ended = time.Now()
		return r
	}
	_, release, err := w.acquireShards(ctx, subjectShards(a.Regen), false)
	if err != nil {
		r.err = err
		return r
	}
	defer release()
	r.fetched = time.Now()
	db := w.regenDatabase(dbStats{w.db.Sequences, w.db.Letters})
	limits := w.cfg.taskLimits()
	start := 0
	for _, end := range ends {
		for i := start; i < end; i++ {
			if err := injectedRegenFailure(a.IDs[i]); err != nil {
				r.err = err
				return r
			}
		}
		qs, letters, err := w.batchQueries(a, queries, start, end)
		if err != nil {
			r.err = err
			return r
		}
		search := regen.Search{Program: w.cfg.Program, Format: w.cfg.Format, MaxTargetSeqs: w.cfg.MaxTargetSeqs,
			Evalue: w.cfg.Evalue, Options: w.cfg.Options, Threads: w.cfg.Threads, BatchLetters: a.Batch,
			Timeout: w.pace.timeout(limits, letters), MaxOutput: limits.MaxOutput, TaxDBDir: w.taxDBDir()}
		pieces, err := regen.Batch(ctx, filepath.Join(w.dir, "regen"), db, search, qs, a.First+start+1, a.Total)
		if err != nil {
			if end-start == 1 {
				r.err = fmt.Errorf("query %s: %w", a.IDs[start], err)
			} else {
				r.err = fmt.Errorf("queries %s to %s (a BLAST+ batch): %w", a.IDs[start], a.IDs[end-1], err)
			}
			return r
		}
		for i, piece := range pieces {
			r.lines = append(r.lines, piece)
			r.hits = append(r.hits, hitMeta{Query: int32(start + i), Size: int32(len(piece))})
		}
		start = end
	}
	r.ended = time.Now()
	return r
}

// regenDatabase is the database a search made again names, with the
// statistics s its E-values come from.
func (w *worker) regenDatabase(s dbStats) regen.Database {
	return regen.Database{Name: w.db.Name, Title: w.db.Title, Type: w.db.Type, Sequences: s.seqs, Letters: s.letters,
		Date: regen.DatabaseDate(w.db.Shards)}
}

// batchQueries are the block's queries [start, end) (one BLAST+ batch)
// with the subjects each is searched against again, and their letters.
func (w *worker) batchQueries(a *assignMsg, queries [][]byte, start, end int) ([]regen.BatchQuery, int, error) {
	qs := make([]regen.BatchQuery, end-start)
	letters := 0
	for i := start; i < end; i++ {
		q := a.Regen[i]
		subjects, err := w.regenSubjects(q)
		if err != nil {
			return nil, 0, err
		}
		qs[i-start] = regen.BatchQuery{FASTA: queries[i], Subjects: subjects, More: q.More}
		letters += len(queries[i])
	}
	return qs, letters, nil
}

// regenBatchEnds are the ends of a block's BLAST+ batches of b letters
// (blast.BatchEnds; a block starts a batch), given its queries' records.
func regenBatchEnds(records [][]byte, b int) []int {
	lengths := make([]int, len(records))
	for i, rec := range records {
		if nl := bytes.IndexByte(rec, '\n'); nl >= 0 {
			lengths[i] = len(rec) - nl - 1 - bytes.Count(rec[nl+1:], []byte{'\n'})
		}
	}
	return blast.BatchEnds(lengths, max(b, blast.Alone))
}

// splitBlock cuts a block's FASTA into its queries' records.
func splitBlock(fasta []byte) [][]byte {
	var recs [][]byte
	start := -1
	for i := 0; i < len(fasta); i++ {
		if fasta[i] == '>' && (i == 0 || fasta[i-1] == '\n') {
			if start >= 0 {
				recs = append(recs, fasta[start:i])
			}
			start = i
		}
	}
	if start >= 0 {
		recs = append(recs, fasta[start:])
	}
	return recs
}

// subjectID is the id of the subject at ordinal in shard s, from the
// shard's ids file (read once, on the first regeneration that needs it).
func (w *worker) subjectID(s int, ordinal int64) ([]string, error) {
	ids, ok := w.subjectIDs[s]
	if !ok {
		sh := w.db.Shards[s]
		var err error
		if ids, err = regen.ReadIDs(filepath.Join(w.dir, sh.IDsFile)); err != nil {
			return nil, fmt.Errorf("shard %s: %w", sh.Name, err)
		}
		w.subjectIDs[s] = ids
	}
	id, ok := ids[ordinal]
	if !ok {
		return nil, fmt.Errorf("shard %d: no subject of ordinal %d in its ids file", s, ordinal)
	}
	return id, nil
}

// checkRegenerating refuses what a report cannot be made with.
func (c *Config) checkRegenerating() error {
	if c.Sim != nil && c.Metadata {
		return fmt.Errorf("--transfer metadata: --backend simulate has no subjects to name")
	}
	if c.Format == nil || !c.Format.Regenerated() {
		return nil
	}
	if c.Sim != nil {
		return fmt.Errorf("--outfmt %d is regenerated by BLAST+; --backend simulate models tabular output only", c.Format.Code)
	}
	return nil
}
