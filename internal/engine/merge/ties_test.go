package merge

import (
	"slices"
	"testing"
)

func ordinals(hits []Hit) []int64 {
	out := make([]int64, len(hits))
	for i, h := range hits {
		out[i] = h.Ordinal
	}
	slices.Sort(out)
	return out
}

func TestTies(t *testing.T) {
	prot := Options{LengthDependentEvalues: true, CompositionStats: true}
	// Subjects 1 and 2 (other groups) share a printed E-value; 3 ties
	// with 4 of its own group only; 5 and 6 tie at 0 (ordered by ordinal
	// by BLAST too); 7 and 8 share an E-value at other scores.
	hits := []Hit{
		withSLen(hit(0, 0, 5, 0, 900), 300), withSLen(hit(1, 0, 6, 0, 900), 310),
		withSLen(hit(0, 1, 1, 1e-20, 100), 200), withSLen(hit(0, 2, 1, 1e-3, 30), 200),
		withSLen(hit(1, 1, 2, 1e-20, 100), 200),
		withSLen(hit(0, 3, 3, 1e-10, 60), 150), withSLen(hit(0, 4, 4, 1e-10, 60), 170),
		withSLen(hit(0, 5, 7, 2.5, 20), 100), withSLen(hit(1, 2, 8, 2.5, 22), 400),
	}
	for _, c := range []struct {
		name string
		o    Options
		want []int64
	}{
		{"composition-based statistics", prot, []int64{1, 2, 7, 8}},
		// Equal lengths and scores: equal exact E-values.
		{"without them", Options{LengthDependentEvalues: true}, []int64{7, 8}},
		{"E-values independent of length", Options{CompositionStats: true}, []int64{}},
		{"whole-database program", Options{LengthDependentEvalues: true, CompositionStats: true, Verbatim: true}, []int64{}},
		// The cut keeps 5, 6 and 1: 1's tie with 2 counts, 7's and 8's not.
		{"cut by -max_target_seqs", Options{LengthDependentEvalues: true, CompositionStats: true, MaxTargetSeqs: 3}, []int64{1, 2}},
		{"cut by -evalue", Options{LengthDependentEvalues: true, CompositionStats: true, Evalue: 1}, []int64{1, 2}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Ties(hits, c.o)
			if o := ordinals(got); !slices.Equal(o, c.want) {
				t.Errorf("tied subjects %v, want %v", o, c.want)
			}
			for _, h := range got {
				if h.Ordinal == 1 && h.Index != 1 {
					t.Errorf("subject 1 given by its line %d, want its first (1)", h.Index)
				}
			}
		})
	}
}

// Ranked subjects are ordered by rank whatever their printed scores,
// lengths and ordinals: BLAST's order of exact E-values; the others of
// their E-value by score as before.
func TestMergeRanks(t *testing.T) {
	ranked := func(h Hit, rank int) Hit {
		h.Rank = rank
		return h
	}
	o := Options{LengthDependentEvalues: true, CompositionStats: true, InOrder: true}
	hits := []Hit{
		ranked(withSLen(hit(0, 0, 1, 9.6, 40), 187), 1),
		ranked(withSLen(hit(0, 1, 2, 9.6, 40), 187), 3),
		ranked(withSLen(hit(1, 0, 3, 9.6, 42), 261), 2),
		ranked(withSLen(hit(2, 0, 4, 9.6, 41), 100), 4),
		withSLen(hit(2, 1, 5, 20, 30), 100),
		withSLen(hit(1, 1, 6, 20, 31), 100),
	}
	got := subjectsOf(Merge(hits, o))
	if want := []int64{1, 3, 2, 4, 6, 5}; !slices.Equal(got, want) {
		t.Errorf("subjects %v, want %v", got, want)
	}
	// The unranked guess: a higher score first, then the shorter.
	for i := range hits {
		hits[i].Rank = 0
	}
	got = subjectsOf(Merge(hits, o))
	if want := []int64{3, 4, 1, 2, 6, 5}; !slices.Equal(got, want) {
		t.Errorf("unranked: subjects %v, want %v", got, want)
	}
}
