package merge

// Ties are the subjects of one query whose order across sources the
// printed values cannot tell, as the first hit of each (in no order):
// subjects of at least two sources sharing a printed E-value (not 0),
// whose exact E-values may differ. BLAST orders subjects by their exact
// E-value, then raw score, then ordinal (s_EvalueCompareHSPLists in
// BLAST+'s blast_hits.c, E-values below 1e-180 equal, printed 0.0). A
// protein E-value depends on the subject's length, and under
// composition-based statistics on a composition-adjusted score BLAST
// rounds before printing (blast_kappa.c): equal printed E-values may hide
// exact ones in either order, whatever the printed raw scores (a lower
// one first is seen). Only ties that reach the output count: with
// -max_target_seqs, those of groups with a subject kept. Empty (and
// cheap) when there are none, as for most queries.
func Ties(hits []Hit, o Options) []Hit {
	if !o.LengthDependentEvalues || o.Verbatim {
		return nil
	}
	first := map[int64]Hit{}
	for _, h := range hits {
		if f, ok := first[h.Ordinal]; !ok || h.Index < f.Index {
			first[h.Ordinal] = h
		}
	}
	type group struct {
		members  []Hit
		sources  map[int]bool
		lengths  map[int64]bool
		relevant bool
	}
	groups := map[float64]*group{}
	for _, h := range first {
		if h.Evalue == 0 || (o.Evalue > 0 && h.Evalue > o.Evalue*(1+1e-9)) {
			continue
		}
		g := groups[h.Evalue]
		if g == nil {
			g = &group{sources: map[int]bool{}, lengths: map[int64]bool{}, relevant: o.MaxTargetSeqs <= 0}
			groups[h.Evalue] = g
		}
		g.members = append(g.members, h)
		g.sources[h.Source] = true
		g.lengths[h.SLen] = true
	}
	ambiguous := 0
	for k, g := range groups {
		// Without composition-based statistics the exact E-value follows
		// from the printed score and the lengths: at equal lengths the
		// merge's order (higher score, then ordinal) is BLAST's.
		if len(g.sources) < 2 || (!o.CompositionStats && len(g.lengths) < 2) {
			delete(groups, k)
			continue
		}
		ambiguous++
	}
	if ambiguous == 0 {
		return nil
	}
	if o.MaxTargetSeqs > 0 {
		// A group after the -max_target_seqs cut is dropped whole
		// whatever its order.
		for _, h := range Merge(hits, o) {
			if f := first[h.Ordinal]; f.Source != h.Source || f.Index != h.Index {
				continue
			}
			if g := groups[h.Evalue]; g != nil {
				g.relevant = true
			}
		}
	}
	var out []Hit
	for _, g := range groups {
		if g.relevant {
			out = append(out, g.members...)
		}
	}
	return out
}
