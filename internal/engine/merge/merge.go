// Package merge combines one query's hits from several shard searches into
// the order and cut-offs of a search of the unsharded database (docs/concepts.md#the-correctness-contract).
//
// BLAST+ groups HSPs by subject and sorts subjects by their best E-value,
// then the raw score of their first HSP (descending), then the subject's
// ordinal in the database (descending); -max_target_seqs keeps the first N
// subjects. Each shard search is already in that order, by BLAST's
// unrounded E-values, so the merge keeps every source's own order and
// interleaves sources by their printed values, and where those cannot
// tell (Ties) by the ranks a tie-break search gave (Hit.Rank).
package merge

import (
	"cmp"
	"container/heap"
	"slices"
)

// Hit is the metadata of one output line: enough to order and cut it, and
// to find its text again. Source is the search it came from (one shard
// group) and Index its position in that search's output.
type Hit struct {
	Evalue   float64
	Bitscore float64
	Score    int64 // raw score
	SLen     int64 // subject length
	Ordinal  int64 // the subject's 0-based position in the unsharded database
	Size     int   // bytes of the line's text
	Source   int
	Index    int
	Shard    int // the shard holding the subject (regeneration fetches it there)
	// Rank is the subject's place in BLAST's own order of the subjects it
	// ties with in printed values across sources (a tie-break search,
	// Ties); 0: none.
	Rank int
}

// Options are the global cut-offs and how E-values behave.
type Options struct {
	MaxTargetSeqs int     // subjects kept per query; 0: all
	Evalue        float64 // 0: no cut-off
	// LengthDependentEvalues: protein E-values grow with the subject's
	// length (Spouge's finite-size correction), so equal printed E-values
	// and raw scores may hide different exact E-values. BLAST's order of
	// such subjects from different sources comes from a tie-break search
	// (Ties, Hit.Rank); without one the merge guesses the shorter first.
	LengthDependentEvalues bool
	// CompositionStats: E-values come from composition-adjusted scores
	// that BLAST rounds before printing, so subjects of equal length and
	// printed score may differ in E-value too (Ties).
	CompositionStats bool
	// InOrder: each source numbers its subjects in the database's order
	// (an ordered database), so BLAST already broke its ties as it would
	// on the unsharded database and a source's order is kept as it is.
	// Otherwise runs of tied subjects within a source are re-ordered by
	// their database ordinals.
	InOrder bool
	// Verbatim: one search of the whole database holds each query's
	// whole answer, cut by BLAST itself (a whole-database program, as
	// psiblast, whose output repeats subjects once per iteration): its
	// lines are kept as BLAST printed them, in its order.
	Verbatim bool
}

// tied reports whether BLAST would have ordered the two subjects by
// ordinal alone: their E-values compare equal and so do their raw scores.
// BLAST 2.12 compares E-values exactly, except that two below 1e-180 are
// equal (s_EvalueCompareHSPLists in blast_hits.c); those print as 0.0.
// Where E-values depend on the subject's length, subjects of different
// lengths are therefore tied only at 0.0 (seen on real and generated
// proteins: equal scores, different lengths, ordered by ordinal).
func (o *Options) tied(a, b *Hit) bool {
	return a.Evalue == b.Evalue && a.Score == b.Score &&
		(!o.LengthDependentEvalues || a.SLen == b.SLen || a.Evalue == 0)
}

// compare orders the first HSPs of two subjects from different sources, as
// BLAST would have ordered them in one search.
func (o *Options) compare(a, b *Hit) int {
	if c := cmp.Compare(a.Evalue, b.Evalue); c != 0 {
		return c
	}
	if a.Rank > 0 && b.Rank > 0 {
		// The printed values cannot tell: BLAST's own order (Ties).
		return cmp.Compare(a.Rank, b.Rank)
	}
	if c := cmp.Compare(b.Score, a.Score); c != 0 {
		return c
	}
	if !o.tied(a, b) {
		// Equal printed values, different lengths, no tie-break search
		// (simulations): the exact E-values differ in digits BLAST does
		// not print; guess the shorter.
		if c := cmp.Compare(a.SLen, b.SLen); c != 0 {
			return c
		}
	}
	return cmp.Compare(b.Ordinal, a.Ordinal)
}

// Merge returns the hits of one query in output order. Hits may arrive in
// any order.
func Merge(hits []Hit, o Options) []Hit {
	sorted := slices.Clone(hits)
	if o.Verbatim {
		slices.SortFunc(sorted, func(a, b Hit) int {
			return cmp.Or(cmp.Compare(a.Source, b.Source), cmp.Compare(a.Index, b.Index))
		})
		return sorted
	}
	if o.Evalue > 0 {
		// BLAST applied the cut-off per shard with the whole database's
		// statistics; this re-applies it to the printed values, with slack
		// for their rounding.
		sorted = slices.DeleteFunc(sorted, func(h Hit) bool { return h.Evalue > o.Evalue*(1+1e-9) })
	}
	if len(sorted) == 0 {
		return nil
	}
	slices.SortFunc(sorted, func(a, b Hit) int {
		return cmp.Or(cmp.Compare(a.Source, b.Source), cmp.Compare(a.Index, b.Index))
	})
	// Per source, its subjects in BLAST's order, each with its HSPs.
	queues := subjectHeap{opts: &o}
	for i := 0; i < len(sorted); {
		j := i
		for j < len(sorted) && sorted[j].Source == sorted[i].Source {
			j++
		}
		queues.q = append(queues.q, o.subjects(sorted[i:j]))
		i = j
	}
	heap.Init(&queues)
	out := make([]Hit, 0, len(sorted))
	for n := 0; queues.Len() > 0 && (o.MaxTargetSeqs <= 0 || n < o.MaxTargetSeqs); n++ {
		q := queues.q[0]
		out = append(out, q[0]...)
		if len(q) == 1 {
			heap.Pop(&queues)
		} else {
			queues.q[0] = q[1:]
			heap.Fix(&queues, 0)
		}
	}
	return out
}

// subjects splits one source's hits into subjects in order of first
// appearance; a subject's HSPs keep their order.
func (o *Options) subjects(hits []Hit) [][]Hit {
	pos := map[int64]int{}
	var out [][]Hit
	for _, h := range hits {
		i, ok := pos[h.Ordinal]
		if !ok {
			i = len(out)
			pos[h.Ordinal] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], h)
	}
	if o.InOrder {
		return out
	}
	// A shard group of a database built before shards kept its order
	// breaks ties by the subject's position in the group, not in the whole
	// database: re-break runs of tied subjects by the database ordinal.
	for i := 0; i < len(out); {
		j := i + 1
		for j < len(out) && o.tied(&out[j][0], &out[i][0]) {
			j++
		}
		slices.SortStableFunc(out[i:j], func(a, b []Hit) int { return cmp.Compare(b[0].Ordinal, a[0].Ordinal) })
		i = j
	}
	return out
}

// subjectHeap holds each source's remaining subjects, keyed by the first.
type subjectHeap struct {
	opts *Options
	q    [][][]Hit
}

func (h *subjectHeap) Len() int           { return len(h.q) }
func (h *subjectHeap) Less(i, j int) bool { return h.opts.compare(&h.q[i][0][0], &h.q[j][0][0]) < 0 }
func (h *subjectHeap) Swap(i, j int)      { h.q[i], h.q[j] = h.q[j], h.q[i] }
func (h *subjectHeap) Push(x any)         { h.q = append(h.q, x.([][]Hit)) }
func (h *subjectHeap) Pop() any {
	x := h.q[len(h.q)-1]
	h.q = h.q[:len(h.q)-1]
	return x
}
