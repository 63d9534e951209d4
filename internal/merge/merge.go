// Package merge combines one query's hits from several shards into the
// order and cut-offs of a search of the unsharded database (DESIGN.md §3).
//
// BLAST+ groups HSPs by subject, orders subjects by their best HSP (E-value
// ascending, bit score descending, then the subject's ordinal in the
// database descending) and HSPs within a subject by the same key; its
// -max_target_seqs keeps the first N subjects.
package merge

import (
	"cmp"
	"slices"
)

// Hit is the metadata of one output line: enough to order and cut it, and
// to find its text again (Source and Index are the caller's).
type Hit struct {
	Evalue   float64
	Bitscore float64
	Ordinal  int64 // the subject's 0-based position in the unsharded database
	Size     int   // bytes of the line's text
	Source   int   // e.g. the task that produced it
	Index    int   // e.g. the line's position in that task's output
}

// better orders two HSPs by the BLAST key; ties keep their input order.
func better(a, b *Hit) int {
	if c := cmp.Compare(a.Evalue, b.Evalue); c != 0 {
		return c
	}
	return cmp.Compare(b.Bitscore, a.Bitscore)
}

// Merge returns the hits of one query in output order, keeping at most
// maxTargetSeqs subjects (0: all) and only hits with E-value <= evalue
// (0: no cut-off). The input may come from any number of shards in any
// order; within one source, hits keep their relative order on ties.
func Merge(hits []Hit, maxTargetSeqs int, evalue float64) []Hit {
	if evalue > 0 {
		// BLAST applied the cut-off per shard with the whole database's
		// statistics; this re-applies it to the printed values, with slack
		// for their rounding.
		hits = slices.DeleteFunc(slices.Clone(hits), func(h Hit) bool {
			return h.Evalue > evalue*(1+1e-9)
		})
	}
	if len(hits) == 0 {
		return nil
	}
	sorted := slices.Clone(hits)
	// Stable sort by HSP key within the input order, then group by subject.
	slices.SortStableFunc(sorted, func(a, b Hit) int {
		if c := cmp.Compare(a.Ordinal, b.Ordinal); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Source, b.Source); c != 0 {
			return c
		}
		return cmp.Compare(a.Index, b.Index)
	})
	var subjects [][]Hit
	for i := 0; i < len(sorted); {
		j := i
		for j < len(sorted) && sorted[j].Ordinal == sorted[i].Ordinal {
			j++
		}
		hsps := sorted[i:j]
		slices.SortStableFunc(hsps, func(a, b Hit) int { return better(&a, &b) })
		subjects = append(subjects, hsps)
		i = j
	}
	slices.SortFunc(subjects, func(a, b []Hit) int {
		if c := better(&a[0], &b[0]); c != 0 {
			return c
		}
		return cmp.Compare(b[0].Ordinal, a[0].Ordinal)
	})
	if maxTargetSeqs > 0 && len(subjects) > maxTargetSeqs {
		subjects = subjects[:maxTargetSeqs]
	}
	out := make([]Hit, 0, len(sorted))
	for _, s := range subjects {
		out = append(out, s...)
	}
	return out
}
