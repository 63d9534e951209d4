package simulate

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/engine/merge"
)

// Record is one output line of a task, as the engine's worker builds it
// from real BLAST output: the parsed line, its query and its subject.
type Record struct {
	blast.Line
	Query   int   // index of the line's query within the task's block
	Ordinal int64 // the subject's 0-based ordinal in the whole database
}

// Result is what a task produces.
type Result struct {
	// Output is what BLAST would have printed: the format's Request
	// columns, tab-separated, queries in block order, each query's hits in
	// BLAST's order.
	Output []byte
	// Records is Output through blast.Parse, line for line.
	Records []Record
	// Compute is the task's modelled compute time.
	Compute time.Duration
	// HSPs and ResultBytes are the hits found and their S3aSim result size,
	// before cut-offs: the search's work, which Compute is linear in.
	HSPs        int
	ResultBytes int64
}

// Search runs a task: queries (query i has global index first+i) against
// shards. o holds the cut-offs a shard group's BLAST call would apply:
// MaxTargetSeqs subjects per query (0: all) and the E-value (0: none);
// LengthDependentEvalues must be the merge's, since it is part of the order.
func (m *Model) Search(first int, queries []Query, shards []int, f *blast.Format, o merge.Options) (*Result, error) {
	if err := m.checkTask(first, queries, shards); err != nil {
		return nil, err
	}
	if err := CheckFormat(f); err != nil {
		return nil, err
	}
	if o.MaxTargetSeqs < 0 || o.Evalue < 0 {
		return nil, fmt.Errorf("simulate: max_target_seqs %d and evalue %v must not be negative", o.MaxTargetSeqs, o.Evalue)
	}
	res := &Result{}
	var ordinals []int64
	var queryOf []int
	for i := range queries {
		q := &queries[i]
		hits := m.taskHits(first+i, *q, shards)
		res.HSPs += len(hits)
		res.ResultBytes += resultBytes(hits)
		for _, h := range blastOrder(hits, o) {
			res.Output = appendLine(res.Output, f, q, h)
			ordinals = append(ordinals, h.ordinal)
			queryOf = append(queryOf, i)
		}
	}
	lines, err := blast.Parse(res.Output, f)
	if err != nil {
		return nil, fmt.Errorf("simulate: parsing its own output: %w", err)
	}
	if len(lines) != len(ordinals) {
		return nil, fmt.Errorf("simulate: rendered %d lines, parsed %d", len(ordinals), len(lines))
	}
	res.Records = make([]Record, len(lines))
	for i, l := range lines {
		res.Records[i] = Record{Line: l, Query: queryOf[i], Ordinal: ordinals[i]}
	}
	res.Compute = m.computeTime(res.ResultBytes)
	return res, nil
}

// Compute is the compute time of a task, without rendering its output:
// what Search's Result.Compute would be.
func (m *Model) Compute(first int, queries []Query, shards []int) (time.Duration, error) {
	if err := m.checkTask(first, queries, shards); err != nil {
		return 0, err
	}
	var bytes int64
	for i, q := range queries {
		bytes += resultBytes(m.taskHits(first+i, q, shards))
	}
	return m.computeTime(bytes), nil
}

// resultBytes is the hits' S3aSim result size, which compute time is
// linear in.
func resultBytes(hits []*hsp) int64 {
	var n int64
	for _, h := range hits {
		n += h.resultBytes
	}
	return n
}

// computeTime is S3aSim's model: a constant start-up cost plus time linear
// in the result size, all divided by the compute speed.
func (m *Model) computeTime(resultBytes int64) time.Duration {
	s := (m.cfg.StartupSeconds + m.cfg.ByteSeconds*float64(resultBytes)) / m.cfg.Speed
	return time.Duration(math.Round(s * float64(time.Second)))
}

// taskHits gathers query q's hits in the given shards, unordered.
func (m *Model) taskHits(q int, query Query, shards []int) []*hsp {
	counts := m.shardCounts(q)
	var hits []*hsp
	for _, s := range shards {
		hs := m.shardHits(q, query, s, counts[s])
		for i := range hs {
			hits = append(hits, &hs[i])
		}
	}
	return hits
}

func (m *Model) checkTask(first int, queries []Query, shards []int) error {
	if first < 0 {
		return fmt.Errorf("simulate: first query index %d is negative", first)
	}
	for i, q := range queries {
		if q.Len < 1 {
			return fmt.Errorf("simulate: query %d (%q) has length %d", first+i, q.ID, q.Len)
		}
		if q.ID == "" || strings.ContainsAny(q.ID, "\t\n\r") {
			return fmt.Errorf("simulate: query %d: id %q is empty or holds a tab or newline", first+i, q.ID)
		}
	}
	seen := make(map[int]bool, len(shards))
	for _, s := range shards {
		if s < 0 || s >= m.db.Shards() {
			return fmt.Errorf("simulate: shard %d is not in the database (%d shards)", s, m.db.Shards())
		}
		if seen[s] {
			return fmt.Errorf("simulate: shard %d listed twice in one task", s)
		}
		seen[s] = true
	}
	return nil
}
