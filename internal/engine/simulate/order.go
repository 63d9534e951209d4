package simulate

import (
	"cmp"
	"slices"

	"github.com/blastfleet/blastfleet/internal/engine/merge"
)

// compare is the merge's order (package merge): E-value as printed
// ascending, raw score descending, for length-dependent E-values the
// subject length ascending, then the subject's ordinal descending. The
// stream index breaks what is left, which only HSPs of one subject can
// share, and they all come from one (query, shard) stream.
func compare(a, b *hsp, lengthDependent bool) int {
	if c := cmp.Compare(a.printedEvalue, b.printedEvalue); c != 0 {
		return c
	}
	if c := cmp.Compare(b.score, a.score); c != 0 {
		return c
	}
	if lengthDependent {
		if c := cmp.Compare(a.slen, b.slen); c != 0 {
			return c
		}
	}
	if c := cmp.Compare(b.ordinal, a.ordinal); c != 0 {
		return c
	}
	return cmp.Compare(a.index, b.index)
}

// blastOrder returns one query's hits as one BLAST call would print them:
// the E-value cut-off applied, HSPs grouped by subject, subjects ordered by
// their best HSP and HSPs within a subject by the same key, the first
// MaxTargetSeqs subjects kept. The order is total and the same for any
// subset of the database, so tasks over any shard groups merge to the
// output of one task over all shards.
func blastOrder(hits []*hsp, o merge.Options) []*hsp {
	if o.Evalue > 0 {
		// BLAST cuts by the unrounded E-value.
		hits = slices.DeleteFunc(slices.Clone(hits), func(h *hsp) bool { return h.evalue > o.Evalue })
	}
	slices.SortFunc(hits, func(a, b *hsp) int { return compare(a, b, o.LengthDependentEvalues) })
	// Sorted by that key, a subject first appears with its best HSP, and
	// its HSPs follow in order.
	slot := map[int64]int{}
	var subjects [][]*hsp
	for _, h := range hits {
		i, ok := slot[h.ordinal]
		if !ok {
			i = len(subjects)
			slot[h.ordinal] = i
			subjects = append(subjects, nil)
		}
		subjects[i] = append(subjects[i], h)
	}
	if o.MaxTargetSeqs > 0 && len(subjects) > o.MaxTargetSeqs {
		subjects = subjects[:o.MaxTargetSeqs]
	}
	out := make([]*hsp, 0, len(hits))
	for _, s := range subjects {
		out = append(out, s...)
	}
	return out
}
