package engine

import (
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

// Subjects of one query from different shard groups may share a printed
// E-value and still differ in the exact E-value BLAST orders them by
// (merge.Ties). A block with such ties is merged only once a tie-break
// search has put them in BLAST's own order: on one worker, its queries'
// BLAST+ batches that hold ties are searched again, as a regeneration
// searches them, against just the tied subjects under the search's
// statistics (package regen). BLAST prints them in its order of exact
// E-values, then scores, then ordinals (the alias numbers them in the
// database's order), which the merge takes as their ranks.

// tieFormat is the tie-break search's output, whose order is what it
// gives, as a regeneration asks for it (Format.ReportArg): the columns
// Parse reads.
var tieFormat = func() *blast.Format {
	f, err := blast.ParseFormat("6 qseqid sseqid evalue bitscore score slen")
	if err != nil {
		panic(err)
	}
	return f
}()

// listOptions select subjects: a tie-break search names its subjects
// itself, under the statistics the selection gave.
var listOptions = []string{"seqidlist", "negative_seqidlist", "gilist", "negative_gilist",
	"taxids", "negative_taxids", "taxidlist", "negative_taxidlist"}

// compositionStats reports whether the search's E-values come from
// composition-adjusted scores (blastp, blastx and tblastn default to
// -comp_based_stats 2; the option is refused for other programs).
func compositionStats(opts []blast.Option) bool {
	for _, o := range opts {
		if o.Name == "comp_based_stats" {
			return o.Value != "0" && o.Value != "F" && o.Value != "f"
		}
	}
	return true
}

// queueTieBreak queues a tie-break search for a block whose search tasks
// are all in, if some query of it has ties across its shard groups; the
// block is merged when it is done.
func (m *master) queueTieBreak(id int) {
	b := m.blocks[id]
	if m.cfg.Sim != nil || len(b.groups) < 2 {
		return
	}
	var ties []regenQuery
	for q, hits := range b.hits {
		tied := merge.Ties(hits, m.mergeOpts)
		if len(tied) == 0 {
			continue
		}
		if ties == nil {
			ties = make([]regenQuery, len(b.hits))
		}
		for _, h := range tied {
			ties[q].Subjects = append(ties[q].Subjects, regenSubject{Shard: int32(h.Shard), Ordinal: h.Ordinal})
		}
		slices.SortFunc(ties[q].Subjects, func(a, c regenSubject) int { return cmp.Compare(a.Ordinal, c.Ordinal) })
		m.sum.TiedQueries++
	}
	if ties == nil {
		return
	}
	b.ties, b.tieWait = ties, true
	m.regens = append(m.regens, id)
}

// recordTies ranks the tied subjects of a block's queries in the order
// the tie-break search printed them; the block may be merged.
func (m *master) recordTies(d *doneMsg, t taskInfo, b *blockState) *unit {
	m.sum.TieBreaks++
	m.releaseNow(d.Task)
	if b.unit.failed {
		return nil
	}
	m.taskStats.add(m.taskRecord(t, b, d.BlastSeconds))
	type ranked struct {
		rank   int
		evalue float64
		score  int64
	}
	ranks := make([]map[int64]ranked, len(b.hits))
	for _, h := range d.Hits {
		if ranks[h.Query] == nil {
			ranks[h.Query] = map[int64]ranked{}
		}
		if _, ok := ranks[h.Query][h.Ordinal]; !ok {
			ranks[h.Query][h.Ordinal] = ranked{len(ranks[h.Query]) + 1, h.Evalue, h.Score}
		}
	}
	for q, hits := range b.hits {
		for i := range hits {
			h := &hits[i]
			// A rank counts only for the alignment it was given to: the
			// subject's first, the same as the search's.
			if r, ok := ranks[q][h.Ordinal]; ok && r.evalue == h.Evalue && r.score == h.Score {
				h.Rank = r.rank
			}
		}
	}
	b.tieWait = false
	return b.unit
}

// runTieTask searches the block's BLAST+ batches that hold tied
// subjects again against just those, and reports, per query, its tied
// subjects' lines in BLAST's order.
func (w *worker) runTieTask(ctx context.Context, a *assignMsg) taskResult {
	r, queries, err := beginBlockTask(a)
	if err != nil {
		r.err = fmt.Errorf("ordering ties: %w", err)
		return r
	}
	ordinals, release, err := w.acquireShards(ctx, subjectShards(a.Regen), true)
	if err != nil {
		r.err = err
		return r
	}
	defer release()
	r.fetched = time.Now()
	stats, err := w.searchStats(ctx)
	if err != nil {
		r.err = err
		return r
	}
	db := w.regenDatabase(stats)
	opts := slices.DeleteFunc(slices.Clone(w.cfg.Options), func(o blast.Option) bool { return slices.Contains(listOptions, o.Name) })
	limits := w.cfg.taskLimits()
	start := 0
	for _, end := range regenBatchEnds(queries, a.Batch) {
		qs, letters, err := w.batchQueries(a, queries, start, end)
		if err != nil {
			r.err = err
			return r
		}
		subjects := 0
		for _, q := range qs {
			subjects += len(q.Subjects)
		}
		if subjects == 0 {
			start = end
			continue
		}
		search := regen.Search{Program: w.cfg.Program, Format: tieFormat, MaxTargetSeqs: max(w.cfg.MaxTargetSeqs, subjects),
			Evalue: w.cfg.Evalue, Options: opts, Threads: w.cfg.Threads, BatchLetters: a.Batch,
			Timeout: w.pace.timeout(limits, letters), MaxOutput: limits.MaxOutput}
		pieces, err := regen.Batch(ctx, filepath.Join(w.dir, "ties"), db, search, qs, a.First+start+1, a.Total)
		if err != nil {
			r.err = fmt.Errorf("queries %s to %s: %w", a.IDs[start], a.IDs[end-1], err)
			return r
		}
		for _, piece := range pieces {
			lines, err := blast.Parse(piece, tieFormat)
			if err != nil {
				r.err = fmt.Errorf("ordering ties: %w", err)
				return r
			}
			for _, l := range lines {
				q := slices.Index(a.IDs[start:end], l.Query)
				ord, _, ok := lookup(ordinals, l.Subject)
				if q < 0 || !ok {
					r.err = fmt.Errorf("ordering ties: query %q, subject %q: not searched", l.Query, l.Subject)
					return r
				}
				r.hits = append(r.hits, hitMeta{Query: int32(start + q), Evalue: l.Evalue, Bitscore: l.Bitscore,
					Score: l.Score, SLen: l.SLen, Ordinal: ord})
			}
		}
		start = end
	}
	r.ended = time.Now()
	return r
}

// searchStats are the statistics the search's E-values come from: the
// whole database's, or those under its taxid or sequence id filter.
func (w *worker) searchStats(ctx context.Context) (dbStats, error) {
	filtered, err := w.filteredStats()
	if err == nil && filtered == nil {
		filtered, err = w.seqidStats(ctx)
	}
	if err != nil || filtered == nil {
		return dbStats{w.db.Sequences, w.db.Letters}, err
	}
	return *filtered, nil
}
