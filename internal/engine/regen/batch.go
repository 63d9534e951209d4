package regen

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/bio/blastdoc"
)

// BatchQuery is one query of a BLAST+ batch being regenerated.
type BatchQuery struct {
	FASTA    []byte
	Subjects []Subject // its kept subjects, in the database's order
	// More: the query has, or may have, hits it did not keep (cut by
	// -max_target_seqs, -evalue or culling in the merge, or by a shard's
	// own -max_target_seqs): searched against other queries' subjects, it
	// could show some of them.
	More bool
}

// Batch regenerates one BLAST+ batch, the queries first to
// first+len(qs)-1 (from 1) of a run of total, and returns what each query
// contributes to the run's output (blastdoc.Pieces; in a tabular format,
// the batch's lines are its first query's).
//
// BLAST+ searches a batch as one concatenated query, and a query's hits
// depend on the other queries of its batch (docs/concepts.md#the-correctness-contract), so the batch
// is searched as one (s.BatchLetters keeps it one batch), against the
// union of its queries' kept subjects. A query that kept every hit it
// has on the database has none on the other queries' subjects: the
// union adds nothing to its report. One that did not (More) may hit
// other queries' subjects, each worse than its kept ones (the merge
// dropped them in BLAST's order). While the union holds no more subjects
// than BLAST carries to its final stage (prelimSubjects), BLAST ranks
// them all in that order and cuts them to -max_target_seqs, as the merge
// did: the query shows its kept subjects. With more, BLAST's preliminary
// cut could keep others; the query's piece then comes from one more
// search of the batch against its own subjects. The archive (11) and
// tabular formats print a batch as one document that cannot be cut by
// query: there the union search is all.
//
// With s.BatchLetters 1 (blast.Alone) the queries are searched alone,
// each against its own subjects, as BLAST+ searches each query of a file
// with BATCH_SIZE=1 (an archive's queries then each numbered 1, as the
// separate runs of the alone reference number them).
func Batch(ctx context.Context, dir string, db Database, s Search, qs []BatchQuery, first, total int) ([][]byte, error) {
	if s.BatchLetters <= blast.Alone {
		pieces := make([][]byte, len(qs))
		for i, q := range qs {
			doc, err := Report(ctx, dir, db, s, q.FASTA, q.Subjects)
			if err != nil {
				return nil, err
			}
			p, err := s.pieces(doc, first+i, 1, total, true)
			if err != nil {
				return nil, err
			}
			pieces[i] = p[0]
		}
		return pieces, nil
	}
	var fasta []byte
	var union []Subject
	seen := map[int64]bool{}
	for _, q := range qs {
		fasta = append(fasta, q.FASTA...)
		for _, sub := range q.Subjects {
			if !seen[sub.Ordinal] {
				seen[sub.Ordinal] = true
				union = append(union, sub)
			}
		}
	}
	slices.SortFunc(union, func(a, b Subject) int { return cmp.Compare(a.Ordinal, b.Ordinal) })
	doc, err := Report(ctx, dir, db, s, fasta, union)
	if err != nil {
		return nil, err
	}
	pieces, err := s.pieces(doc, first, len(qs), total, false)
	if err != nil {
		return nil, err
	}
	if !s.Format.Regenerated() || s.Format.Code == 11 {
		return pieces, nil
	}
	for i, q := range qs {
		if !q.More || len(q.Subjects) == len(union) || len(union) <= s.prelimSubjects() {
			continue
		}
		doc, err := Report(ctx, dir, db, s, fasta, q.Subjects)
		if err != nil {
			return nil, err
		}
		own, err := s.pieces(doc, first, len(qs), total, false)
		if err != nil {
			return nil, err
		}
		pieces[i] = own[i]
	}
	return pieces, nil
}

// prelimSubjects is how many subjects of a query BLAST+ carries at the
// least from its preliminary search to its final ranking and cut to
// -max_target_seqs N: its preliminary hit list (GetPrelimHitlistSize in
// BLAST+'s blast_hits.c), min(max(2N, 10), N+50) for a gapped search,
// more with composition-based statistics, N for an ungapped one.
func (s Search) prelimSubjects() int {
	n := cmp.Or(s.MaxTargetSeqs, blast.DefaultMaxTargetSeqs)
	if s.Program == blast.Tblastx || slices.ContainsFunc(s.Options, func(o blast.Option) bool { return o.Name == "ungapped" }) {
		return n
	}
	return min(max(2*n, 10), n+50)
}

// pieces cuts doc, BLAST's output for the n queries from first, into
// what each contributes to the run's output; alone: doc is one query's,
// searched alone.
func (s Search) pieces(doc []byte, first, n, total int, alone bool) ([][]byte, error) {
	switch {
	case !s.Format.Regenerated():
		// Tabular: BLAST's lines are the output.
		pieces := make([][]byte, n)
		pieces[0] = doc
		return pieces, nil
	case alone:
		if n != 1 {
			return nil, fmt.Errorf("%d queries searched alone in one report", n)
		}
		p, err := blastdoc.Piece(s.Format.Code, doc, first, total)
		return [][]byte{p}, err
	}
	return blastdoc.Pieces(s.Format.Code, doc, first, n, total)
}
